# The ldprof program: command table, launcher, ELF reading, analysis, reports.

# The sanitizer build keeps its binary apart too, so that the two never mix.
ifeq ($(ASAN),1)
LDPROF := $(B)/ldprof
else
LDPROF := ldprof
endif

ANALYZER_PKGS    := libelf libzstd libunwind-generic libunwind
# Includes name their layer ("elf/elfobj.h"); the shim's record format is
# shared from preload/include.
ANALYZER_CFLAGS   = $(BASE_CFLAGS) $(SAN_FLAGS) -Ianalyzer -Ipreload/include $(shell $(PKG_CONFIG) --cflags $(ANALYZER_PKGS)) \
		    -DLDPROF_PKGLIBDIR='"$(PKGLIBDIR)"'
ANALYZER_LIBS     = $(shell $(PKG_CONFIG) --libs $(ANALYZER_PKGS)) -lm

# Everything but main.c, so unit tests link against the same code. One
# folder per layer: base, elf, stack, ldso, trace, run, model, render, cmd.
ANALYZER_LAYERS   := base elf stack ldso trace run model render cmd
ANALYZER_LIB_SRCS := $(foreach l,$(ANALYZER_LAYERS),$(wildcard analyzer/$(l)/*.c analyzer/$(l)/*/*.c))
ANALYZER_LIB_OBJS := $(ANALYZER_LIB_SRCS:%.c=$(B)/%.o)
ANALYZER_LIB      := $(B)/libldprof.a

$(B)/analyzer/%.o: analyzer/%.c
	@mkdir -p $(@D)
	$(CC) $(ANALYZER_CFLAGS) -c -o $@ $<

$(ANALYZER_LIB): $(ANALYZER_LIB_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

$(LDPROF): $(B)/analyzer/main.o $(ANALYZER_LIB)
	$(CC) $(SAN_FLAGS) $(LDFLAGS) -o $@ $^ $(ANALYZER_LIBS)
