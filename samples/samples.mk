# samples/samples.mk: the sample shell ldprof measures, built twice.
#
# samples/sh.dynamic  PIE, linked against libedit and libtinfo (and so,
#                     through libedit, libbsd and libmd): the dynamic
#                     FreeBSD /bin/sh of the 2003 report.
# samples/sh.static   the same sources linked -static: the /bin/sh it
#                     replaced.
#
# No SAN_FLAGS here: these programs are what the profiler measures, and a
# sanitizer runtime would swamp the startup cost being measured.

SAMPLES := samples/sh.dynamic samples/sh.static

SH_SRCS := $(addprefix samples/sh/,main.c input.c lex.c exec.c term.c util.c)

# Each build has its own objects: PIE code for the dynamic one, classic
# non-PIE code for the static one, as a static /bin/sh was in 2003.
SH_DYN_OBJS := $(SH_SRCS:samples/sh/%.c=$(B)/samples/dynamic/%.o)
SH_STATIC_OBJS := $(SH_SRCS:samples/sh/%.c=$(B)/samples/static/%.o)

# libedit for line editing, tinfo for the terminfo calls in term.c.  Asked
# once (:=), not at every use.
SH_PKGS := libedit tinfo
SH_PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(SH_PKGS))
SH_DYN_LIBS := $(shell $(PKG_CONFIG) --libs $(SH_PKGS))
# --static adds libedit's private libraries (libbsd) and theirs (libmd).
SH_STATIC_LIBS := $(shell $(PKG_CONFIG) --static --libs $(SH_PKGS) libbsd)

$(SH_DYN_OBJS): $(B)/samples/dynamic/%.o: samples/sh/%.c samples/samples.mk
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(SH_PKG_CFLAGS) -fPIE -c $< -o $@

$(SH_STATIC_OBJS): $(B)/samples/static/%.o: samples/sh/%.c samples/samples.mk
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(SH_PKG_CFLAGS) -fno-PIE -c $< -o $@

# --as-needed: libedit and libtinfo only stay in DT_NEEDED because the
# shell really calls into both.
samples/sh.dynamic: $(SH_DYN_OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -pie -Wl,--as-needed -o $@ $(SH_DYN_OBJS) \
		$(SH_DYN_LIBS)

# The shell uses no libedit file completion, so none of glibc's getpwnam
# warnings for static binaries are pulled in; there is nothing to silence.
samples/sh.static: $(SH_STATIC_OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -static -o $@ $(SH_STATIC_OBJS) \
		$(SH_STATIC_LIBS)

.PHONY: check-samples
check-samples: $(SAMPLES)
	samples/sh/test-sh.sh samples/sh.dynamic
	samples/sh/test-sh.sh samples/sh.static
