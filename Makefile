# sbx — build, test, install. `make help` lists the targets.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
LIBEXECDIR ?= $(PREFIX)/libexec/sbx
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
DESTDIR ?=

CC ?= cc
AR ?= ar
PKG_CONFIG ?= pkg-config
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo 0.1.0)

PKGS := libelf libdw libtraceevent json-c capstone libzstd yaml-0.1
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)

CFLAGS ?= -O2 -g
WARNINGS := -Wall -Wextra -Wshadow -Wno-unused-parameter -Wstrict-prototypes
# CI builds with warnings as errors; so does anyone with WERROR=1
ifneq ($(CI)$(WERROR),)
WARNINGS += -Werror
endif
ALL_CFLAGS := -std=gnu11 $(WARNINGS) $(CFLAGS) -D_GNU_SOURCE -Ilib $(PKG_CFLAGS) -MMD -MP
# -lstdc++ for __cxa_demangle, the C++ demangler behind lib/symbol/demangle.c
LDLIBS := $(PKG_LIBS) -lpfm -lpthread -lm -lstdc++

# SANITIZE=1: AddressSanitizer + UndefinedBehaviorSanitizer, in a build folder of its own
ifeq ($(SANITIZE),1)
VARIANT := san
ALL_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
else
VARIANT := default
endif
# B=build/NAME gives a build folder of your own (./sbx is not updated then)
B ?= build/$(VARIANT)

# lib/ by layer (Documentation/design.md): util, perf, symbol, measure, …
LIB_SRCS := $(sort $(wildcard lib/*/*.c))
CMD_SRCS := $(sort $(wildcard cmd/*.c))
UNIT_SRCS := $(sort $(wildcard tests/unit/test-*.c))
WORKLOAD_SRCS := $(sort $(wildcard tests/workloads/*.c))
WORKLOAD_CXX_SRCS := $(sort $(wildcard tests/workloads/*.cc))
LIB_OBJS := $(LIB_SRCS:%.c=$(B)/%.o)
CMD_OBJS := $(CMD_SRCS:%.c=$(B)/%.o)
UNIT_BINS := $(UNIT_SRCS:%.c=$(B)/%)
WORKLOADS := $(WORKLOAD_SRCS:%.c=%) $(WORKLOAD_CXX_SRCS:%.cc=%)
MAN_SRCS := $(wildcard Documentation/*.scd)
MANS := $(MAN_SRCS:%.scd=%)

.PHONY: all doc check unit-tests demo deps install uninstall clean help fuzz fuzz-build jit examples FORCE

all: sbx lib/libsbx.a jit doc workloads

help:
	@echo 'make            build ./sbx, lib/libsbx.a, the man pages and the test workloads'
	@echo 'make check      install missing dependencies, build, run every test'
	@echo 'make demo       install missing dependencies, build, run the main jobs'
	@echo 'make SANITIZE=1 the same with ASan+UBSan (also: make check SANITIZE=1)'
	@echo 'make install    the binary, man pages, completions: PREFIX=$(PREFIX) DESTDIR=…'
	@echo 'make uninstall  remove what make install put in place'
	@echo 'make fuzz       build the libFuzzer targets and run each FUZZ_SECONDS (default 60)'
	@echo 'make jit        libsbx-jit (static, shared, pkg-config) in $(B)'
	@echo 'make examples   Documentation/examples (LLVM 19 ORC + libsbx-jit)'

$(B)/%.o: %.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# The names of the x86-64 system calls, from the kernel's headers as the compiler sees them
GEN_SYSCALLS := build/gen/measure/syscall-names.h
$(GEN_SYSCALLS):
	@mkdir -p $(dir $@)
	echo '#include <asm/unistd_64.h>' | $(CC) -E -dM -x c - | \
		awk '/^#define __NR_/ && $$3 ~ /^[0-9]+$$/ { sub("__NR_", "", $$2); \
		print "SYSCALL(" $$3 ", " $$2 ")" }' | sort -t'(' -k2 -n > $@.tmp && \
		test -s $@.tmp && mv $@.tmp $@
$(B)/lib/measure/workload.o build/fuzz/lib/measure/workload.o: $(GEN_SYSCALLS)
$(B)/lib/measure/workload.o: ALL_CFLAGS += -Ibuild/gen
build/fuzz/lib/measure/workload.o: FUZZ_CFLAGS += -Ibuild/gen

# rebuild when the flags change
$(B)/.flags: FORCE
	@mkdir -p $(B)
	@echo '$(CC) $(ALL_CFLAGS) $(LDFLAGS)' | cmp -s - $@ || \
		echo '$(CC) $(ALL_CFLAGS) $(LDFLAGS)' > $@

# The version and the install paths reach one object each, so that a commit
# (a new `git describe`) or another PREFIX rebuilds that object only.
$(B)/.version: FORCE
	@mkdir -p $(B)
	@echo '$(VERSION)' | cmp -s - $@ || echo '$(VERSION)' > $@

$(B)/.paths: FORCE
	@mkdir -p $(B)
	@echo '$(LIBEXECDIR) $(MANDIR) $(PREFIX) $(LIBDIR) $(INCLUDEDIR)' | cmp -s - $@ || \
		echo '$(LIBEXECDIR) $(MANDIR) $(PREFIX) $(LIBDIR) $(INCLUDEDIR)' > $@

$(B)/lib/util/version.o: lib/util/version.c $(B)/.flags $(B)/.version
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DSBX_VERSION='"$(VERSION)"' -c -o $@ $<

$(B)/cmd/sbx.o: cmd/sbx.c $(B)/.flags $(B)/.paths
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DSBX_LIBEXECDIR='"$(LIBEXECDIR)"' -DSBX_MANDIR='"$(MANDIR)"' -c -o $@ $<

$(B)/libsbx.a: $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(B)/sbx: $(CMD_OBJS) $(B)/libsbx.a
	$(CC) $(LDFLAGS) -o $@ $(CMD_OBJS) $(B)/libsbx.a $(LDLIBS)

# libsbx-jit: the one public library (include/sbx/jit.h), libc only, for JIT runtimes
# (never built with the sanitizers: what is installed must need libc only)
JIT_VERSION := 1.0.0
JIT_CFLAGS := -std=gnu11 $(WARNINGS) $(CFLAGS) -D_GNU_SOURCE -Iinclude -Ilib -fPIC -MMD -MP
JIT_LIBS := $(B)/libsbx-jit.a $(B)/libsbx-jit.so.$(JIT_VERSION) $(B)/sbx-jit.pc

$(B)/libsbx-jit/jit.o: libsbx-jit/jit.c include/sbx/jit.h lib/jit/jitdump-format.h $(B)/.flags
	@mkdir -p $(dir $@)
	$(CC) $(JIT_CFLAGS) -c -o $@ $<

$(B)/libsbx-jit.a: $(B)/libsbx-jit/jit.o
	@rm -f $@
	$(AR) rcs $@ $^

$(B)/libsbx-jit.so.$(JIT_VERSION): $(B)/libsbx-jit/jit.o libsbx-jit/libsbx-jit.map
	$(CC) -shared -Wl,-soname,libsbx-jit.so.1 \
		-Wl,--version-script=libsbx-jit/libsbx-jit.map -o $@ $(B)/libsbx-jit/jit.o -lpthread

$(B)/sbx-jit.pc: libsbx-jit/sbx-jit.pc.in $(B)/.paths
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(JIT_VERSION)|g' $< > $@

jit: $(JIT_LIBS)

# Documentation/examples: a JIT (LLVM 19 ORC, C API) that reports its code through libsbx-jit
LLVM19_CONFIG ?= llvm-config-19
$(B)/examples/lljit-sbx: Documentation/examples/lljit-sbx.c $(B)/libsbx-jit.a include/sbx/jit.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(WARNINGS) -O1 -g -Iinclude $$($(LLVM19_CONFIG) --cflags) -o $@ $< \
		$(B)/libsbx-jit.a $$($(LLVM19_CONFIG) --ldflags) $$($(LLVM19_CONFIG) --libs) -lpthread

examples: $(B)/examples/lljit-sbx

# ./sbx and lib/libsbx.a are copies of the variant built last
sbx: $(B)/sbx FORCE
	@cmp -s $< $@ || cp $< $@

lib/libsbx.a: $(B)/libsbx.a FORCE
	@cmp -s $< $@ || cp $< $@

$(B)/tests/unit/%: tests/unit/%.c $(B)/tests/unit/harness.o $(B)/libsbx.a $(B)/libsbx-jit.a \
		$(B)/.flags
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/unit -Iinclude $(LDFLAGS) -o $@ $< $(B)/tests/unit/harness.o \
		$(B)/libsbx.a $(B)/libsbx-jit.a $(LDLIBS)

$(B)/tests/unit/harness.o: tests/unit/harness.c tests/unit/harness.h $(B)/.flags
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

unit-tests: $(UNIT_BINS)

# tools the tests run (tests/tools/*.c), linked like the unit tests
TOOL_SRCS := $(sort $(wildcard tests/tools/*.c))
TOOL_BINS := $(TOOL_SRCS:%.c=$(B)/%) $(B)/scripts/gen-perf-data

$(B)/tests/tools/%: tests/tools/%.c $(B)/libsbx.a $(B)/.flags
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(B)/libsbx.a $(LDLIBS)

test-tools: $(TOOL_BINS)
.PHONY: test-tools

# generators of large inputs for scripts/bench (scripts/*.c), linked like the tests
$(B)/scripts/%: scripts/%.c $(B)/libsbx.a $(B)/.flags
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(B)/libsbx.a $(LDLIBS)

# workloads are built without sanitizers: they are what gets measured
# (the tiny JIT links libsbx-jit's source, so it never depends on a build folder)
tests/workloads/tinyjit: tests/workloads/tinyjit.c libsbx-jit/jit.c include/sbx/jit.h lib/jit/jitdump-format.h
	$(CC) -O1 -g -fno-inline -fno-omit-frame-pointer -fPIE -pie -Iinclude -Ilib -o $@ \
		tests/workloads/tinyjit.c libsbx-jit/jit.c -lpthread

tests/workloads/%: tests/workloads/%.c
	$(CC) -O1 -g -fno-inline -fno-omit-frame-pointer -fPIE -pie -o $@ $< -lpthread

# the subjects of sbx profgen: what sample PGO builds look like (clang, DWARF
# with discriminators)
tests/workloads/profgen-%: tests/workloads/profgen-%.c
	clang -O2 -g -fdebug-info-for-profiling -fno-omit-frame-pointer -o $@ $<

tests/workloads/%: tests/workloads/%.cc
	$(CXX) -O1 -g -fno-inline -fno-omit-frame-pointer -fPIE -pie -o $@ $<

workloads: $(WORKLOADS)
.PHONY: workloads

doc: $(MANS)

# libFuzzer targets (clang): tests/fuzz/fuzz-NAME.c -> build/fuzz/fuzz-NAME; scripts/fuzz.sh runs them
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz-*.c))
FUZZ_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=build/fuzz/%)
FUZZ_LIB_OBJS := $(LIB_SRCS:%.c=build/fuzz/%.o)
FUZZ_CFLAGS := -std=gnu11 -g -O1 -D_GNU_SOURCE -Ilib $(PKG_CFLAGS) -MMD -MP \
	-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined

build/fuzz/%.o: %.c
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -c -o $@ $<

build/fuzz/fuzz-%: tests/fuzz/fuzz-%.c $(FUZZ_LIB_OBJS)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $(filter %.c %.o,$^) $(LDLIBS)

.SECONDARY: $(FUZZ_LIB_OBJS)
fuzz-build: $(FUZZ_BINS)

# every target for FUZZ_SECONDS each (seeds made on first use; see scripts/fuzz.sh)
FUZZ_SECONDS ?= 60
fuzz:
	@scripts/fuzz.sh $(FUZZ_SECONDS)

Documentation/%: Documentation/%.scd
	scdoc < $< > $@.tmp && mv $@.tmp $@

deps:
	@scripts/install-deps.sh

check: deps
	@$(MAKE) --no-print-directory all unit-tests test-tools examples
	@B=$(B) tests/run-all.sh

demo: deps
	@$(MAKE) --no-print-directory all
	@scripts/demo.sh

# what a user runs: the binary, its man pages and completions, and libsbx-jit
# (its header, libraries, pkg-config file); lib/ is internal: no header of it
# and no libsbx.a are installed
install: sbx doc jit
	install -d $(DESTDIR)$(INCLUDEDIR)/sbx $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(MANDIR)/man3
	install -m 644 include/sbx/jit.h $(DESTDIR)$(INCLUDEDIR)/sbx/jit.h
	install -m 644 $(B)/libsbx-jit.a $(DESTDIR)$(LIBDIR)/libsbx-jit.a
	install -m 755 $(B)/libsbx-jit.so.$(JIT_VERSION) $(DESTDIR)$(LIBDIR)/
	ln -sf libsbx-jit.so.$(JIT_VERSION) $(DESTDIR)$(LIBDIR)/libsbx-jit.so.1
	ln -sf libsbx-jit.so.1 $(DESTDIR)$(LIBDIR)/libsbx-jit.so
	install -m 644 $(B)/sbx-jit.pc $(DESTDIR)$(LIBDIR)/pkgconfig/sbx-jit.pc
	install -m 644 $(filter %.3,$(MANS)) $(DESTDIR)$(MANDIR)/man3/
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7 \
		$(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	install -m 755 sbx $(DESTDIR)$(BINDIR)/sbx
	install -m 644 $(filter %.1,$(MANS)) $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(filter %.7,$(MANS)) $(DESTDIR)$(MANDIR)/man7/
	install -m 644 completions/sbx.bash $(DESTDIR)$(BASHCOMPDIR)/sbx
	install -m 644 completions/_sbx $(DESTDIR)$(ZSHCOMPDIR)/_sbx

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/sbx
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(filter %.1,$(MANS))))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man7/,$(notdir $(filter %.7,$(MANS))))
	rm -f $(DESTDIR)$(BASHCOMPDIR)/sbx $(DESTDIR)$(ZSHCOMPDIR)/_sbx
	rm -f $(DESTDIR)$(INCLUDEDIR)/sbx/jit.h $(DESTDIR)$(LIBDIR)/libsbx-jit.a \
		$(DESTDIR)$(LIBDIR)/libsbx-jit.so.$(JIT_VERSION) $(DESTDIR)$(LIBDIR)/libsbx-jit.so.1 \
		$(DESTDIR)$(LIBDIR)/libsbx-jit.so $(DESTDIR)$(LIBDIR)/pkgconfig/sbx-jit.pc
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man3/,$(notdir $(filter %.3,$(MANS))))
	-rmdir $(DESTDIR)$(INCLUDEDIR)/sbx 2>/dev/null
	-rmdir $(DESTDIR)$(LIBEXECDIR) 2>/dev/null

clean:
	rm -rf build sbx lib/libsbx.a $(MANS) $(WORKLOADS)

-include $(shell find build -name '*.d' 2>/dev/null)
