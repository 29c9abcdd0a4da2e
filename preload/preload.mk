# The shim: a freestanding audit module and a libc-free preload.
#
# Both are built -nostdlib -ffreestanding and must end up with no DT_NEEDED
# and no undefined symbols except the weak _r_debug of the preload; the
# check-shim-deps rule proves it after each link. Sanitizer flags are never
# applied here. tools/check-layers (make check) proves that the files call
# only downward: no loop between two objects.

SHIM_AUDIT   := preload/ldprof-audit.so
SHIM_SYMBIND := preload/ldprof-audit-symbind.so
SHIM_PRELOAD := preload/ldprof-preload.so
SHIM_LIBS    := $(SHIM_AUDIT) $(SHIM_SYMBIND) $(SHIM_PRELOAD)

SHIM_CFLAGS  = -std=c11 -D_GNU_SOURCE $(WARN) -O2 -g -fPIC -ffreestanding -fno-builtin \
	       -fno-stack-protector -fno-stack-clash-protection -fvisibility=hidden \
	       -fasynchronous-unwind-tables -fcf-protection=none -Ipreload/include -MMD -MP
# -z norelro: each shim's GOT and data share one page, so ld.so's relocation
# and our first write cost one copy-on-write fault instead of two.
SHIM_LDFLAGS = -shared -nostdlib -Wl,--hash-style=gnu -Wl,-z,norelro -Wl,-z,noexecstack -Wl,-z,noseparate-code \
	       -Wl,--no-undefined-version -Wl,-z,now -Wl,-Bsymbolic

SHIM_AUDIT_OBJS   := $(B)/preload/audit.o $(B)/preload/ctor.o $(B)/preload/hooks.o $(B)/preload/lazy.o \
		     $(B)/preload/stubs.o $(B)/preload/trampoline.o $(B)/preload/record.o \
		     $(B)/preload/shim-elfsym.o
SHIM_PRELOAD_OBJS := $(B)/preload/preload.o $(B)/preload/shim-elfsym.o

$(B)/preload/%.o: preload/%.c
	@mkdir -p $(@D)
	$(CC) $(SHIM_CFLAGS) -c -o $@ $<

$(B)/preload/%.o: preload/%.S
	@mkdir -p $(@D)
	$(CC) $(SHIM_CFLAGS) -c -o $@ $<

# The audit modules' layout: preload/shim.lds says why.
SHIM_AUDIT_LDFLAGS = $(SHIM_LDFLAGS) -Wl,-T,preload/shim.lds

$(SHIM_AUDIT): $(SHIM_AUDIT_OBJS) preload/check-shim-deps preload/preload.mk preload/shim.lds
	$(CC) $(SHIM_AUDIT_LDFLAGS) -o $@.tmp $(SHIM_AUDIT_OBJS)
	preload/check-shim-deps $@.tmp
	mv $@.tmp $@

# The same module with la_symbind64, for ldprof --symbind (the cost model's
# direct cross-check); only audit.c differs.
$(B)/preload/audit-symbind.o: preload/audit.c
	@mkdir -p $(@D)
	$(CC) $(SHIM_CFLAGS) -DLDPROF_SYMBIND -c -o $@ $<

SHIM_SYMBIND_OBJS := $(B)/preload/audit-symbind.o $(filter-out $(B)/preload/audit.o,$(SHIM_AUDIT_OBJS))

$(SHIM_SYMBIND): $(SHIM_SYMBIND_OBJS) preload/check-shim-deps preload/preload.mk preload/shim.lds
	$(CC) $(SHIM_AUDIT_LDFLAGS) -o $@.tmp $(SHIM_SYMBIND_OBJS)
	preload/check-shim-deps $@.tmp
	mv $@.tmp $@

$(SHIM_PRELOAD): $(SHIM_PRELOAD_OBJS) preload/check-shim-deps preload/preload.mk
	$(CC) $(SHIM_LDFLAGS) -o $@.tmp $(SHIM_PRELOAD_OBJS)
	preload/check-shim-deps $@.tmp _r_debug
	mv $@.tmp $@
