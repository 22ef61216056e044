# tcgen - one non-recursive Makefile. Everything generated goes to $(BUILD).
#   make            build libtcgen.a, libtcgen.so and the tcgen command
#   make demo       install missing packages (Debian), build, run the main job on
#                   the built-in example; every other target only checks for them
#   make check      the quick test for every edit (about 15 s here, 30 s with a
#                   full build): the CUnit suites but for a few slow tests
#                   (CHECK_TESTS), tests/symbols_test.sh, scripts/smoke.sh
#   make test       the whole suite CI runs (scripts/test.sh): every CUnit suite,
#                   the examples, every tests/*_test.sh; a line per suite/script
#   make test-asan  the same under AddressSanitizer + UndefinedBehaviorSanitizer
#   make fuzz       run the parser fuzz target (libFuzzer, clang) for FUZZ_SECONDS
#   V=1 shows the commands.

BUILD    ?= build
CC       ?= cc
OPT      ?= -O2 -g
SAN      ?=
WARN     := -Wall -Wextra -Wpedantic -Werror
CPPFLAGS := -D_GNU_SOURCE -Iinclude -I. -I$(BUILD) -I$(BUILD)/gen
# Hidden visibility: libtcgen.so exports only what include/tcgen.h marks
# TC_API (tests/symbols_test.sh); the tests and the command link libtcgen.a.
CFLAGS   := -std=c11 $(OPT) $(SAN) -fPIC -fvisibility=hidden
LDLIBS   := -lhwloc -ldl -lm -lpthread
TEST_LDLIBS := -lcunit
FUZZ_SECONDS ?= 60

ifeq ($(V),1)
Q :=
else
Q := @
endif

MODULES  := ast parser generator runtime microbench planner
LIB_SRC  := $(foreach m,$(MODULES),$(wildcard $(m)/*.c))
GEN_SRC  := $(BUILD)/gen/grammar.tab.c $(BUILD)/gen/lexer.c
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
GEN_OBJ  := $(GEN_SRC:$(BUILD)/gen/%.c=$(BUILD)/obj/gen/%.o)
CLI_SRC  := $(wildcard cli/*.c)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
TEST_SRC := $(wildcard tests/*.c)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/obj/%.o)
SUITES   := $(patsubst tests/test_%.c,%,$(wildcard tests/test_*.c))

LIB_A    := $(BUILD)/libtcgen.a
LIB_SO   := $(BUILD)/libtcgen.so
TCGEN    := $(BUILD)/tcgen
RUNNER   := $(BUILD)/tests/run_tests
DEPS_OK  := $(BUILD)/.deps-ok

# Objects depend on the flags they were compiled with: $(FLAGS_STAMP) is
# rewritten when CC, CPPFLAGS or CFLAGS (OPT, SAN) change, which rebuilds them.
FLAGS_STAMP := $(BUILD)/flags
TC_FLAGS    := $(CC) $(CPPFLAGS) $(CFLAGS)
$(shell mkdir -p '$(BUILD)' && { printf '%s\n' '$(TC_FLAGS)' | cmp -s - '$(FLAGS_STAMP)' || \
          printf '%s\n' '$(TC_FLAGS)' > '$(FLAGS_STAMP)'; })

.PHONY: all deps demo check test test-asan fuzz clean bench examples install uninstall test-install
all: $(TCGEN) $(LIB_A) $(LIB_SO)

# make examples (examples/examples.mk); make install, uninstall, test-install
# (scripts/install.mk); the Fortran module (fortran/fortran.mk). Included
# after `all`, which stays the default goal.
include examples/examples.mk
include scripts/install.mk
include fortran/fortran.mk
include tests/alloc/alloc.mk

# What the build (and the tests) need, checked once by what it does, on
# any Linux; a missing part stops make with the list and the install
# commands for Debian and RPM systems. Only `make demo` (and CI) install.
deps: $(DEPS_OK)
$(DEPS_OK): scripts/check-deps.sh
	$(Q)bash scripts/check-deps.sh build
	$(Q)mkdir -p $(dir $@) && touch $@
DEPS_TEST_OK := $(BUILD)/.deps-test-ok
$(DEPS_TEST_OK): scripts/check-deps.sh
	$(Q)bash scripts/check-deps.sh test
	$(Q)mkdir -p $(dir $@) && touch $@

$(BUILD)/gen/grammar.tab.c $(BUILD)/gen/grammar.tab.h &: parser/grammar.y | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  BISON   $<")
	$(Q)bison -Wall -Werror --defines=$(BUILD)/gen/grammar.tab.h -o $(BUILD)/gen/grammar.tab.c $<

$(BUILD)/gen/lexer.c $(BUILD)/gen/lexer.h &: parser/lexer.l | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  FLEX    $<")
	$(Q)flex --header-file=$(BUILD)/gen/lexer.h -o $(BUILD)/gen/lexer.c $<

# The permutation kernel's text, which the emitter writes into the files
# that permute a tensor (runtime/permute.c compiles the same text).
$(BUILD)/gen/permute_kernel_text.h: runtime/permute_kernel.inc
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  GEN     $@")
	$(Q)awk 'BEGIN { print "/* generated from runtime/permute_kernel.inc */"; \
	                 print "static const char *const tc_permute_kernel_text[] = {" } \
	         /\\/ { print FILENAME ":" NR ": no backslashes here (the text becomes a C string)" > "/dev/stderr"; exit 1 } \
	         { gsub(/"/, "\\\""); print "    \"" $$0 "\"," } \
	         END { print "    0};" }' $< > $@
$(BUILD)/obj/generator/emit_c.o: $(BUILD)/gen/permute_kernel_text.h

# Generated parser sources get the same standard but not -Wpedantic/-Werror.
$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c $(BUILD)/gen/grammar.tab.h $(BUILD)/gen/lexer.h $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -Wno-unused-function -c -o $@ $<

$(BUILD)/obj/%.o: %.c $(BUILD)/gen/grammar.tab.h $(BUILD)/gen/lexer.h $(FLAGS_STAMP) | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -MMD -MP -c -o $@ $<

$(LIB_A): $(LIB_OBJ) $(GEN_OBJ)
	$(if $(Q),@echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

# The link named by the soname lets programs linked in the build tree run.
$(LIB_SO): $(LIB_OBJ) $(GEN_OBJ)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) -shared -Wl,-soname,$(TC_SONAME) -o $@ $^ $(LDLIBS)
	$(Q)ln -sf $(notdir $@) $(BUILD)/$(TC_SONAME)

$(TCGEN): $(CLI_OBJ) $(LIB_A)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) $(LIB_A) $(LDLIBS)

# The runner calls tc_suite_<name>() for every tests/test_<name>.c.
$(BUILD)/tests/suites.inc: $(wildcard tests/test_*.c)
	@mkdir -p $(dir $@)
	$(Q)printf 'SUITE(%s)\n' $(SUITES) > $@

$(BUILD)/obj/tests/run_tests.o: $(BUILD)/tests/suites.inc

$(TEST_OBJ): | $(DEPS_TEST_OK)
$(RUNNER): $(TEST_OBJ) $(LIB_A)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) -o $@ $(TEST_OBJ) $(LIB_A) $(TEST_LDLIBS) $(LDLIBS)

# The one target that installs (Debian packages, scripts/install-deps.sh).
demo:
	$(Q)bash scripts/install-deps.sh
	$(Q)$(MAKE) --no-print-directory all
	$(TCGEN) 'C[a,b,c] = A[a,i] * B[i,b,c]' 'a=b=c=400,i=8'

# What scripts/test.sh, scripts/smoke.sh and every tests/*_test.sh get. A
# tests/*_test.sh runs from the top directory, ends with "NAME: N passed, N
# failed" and exits non-zero on a failure; make test runs each one it finds.
TEST_ENV = TCGEN='$(TCGEN)' BUILD='$(BUILD)' RUNNER='$(RUNNER)' ALLOC_FAIL='$(ALLOC_FAIL)' ALLOC_CLI='$(ALLOC_CLI)' CC='$(CC)' SAN='$(SAN)' MAKE='$(MAKE)'

# The full suite: all of `all` first, so that the install test rebuilds nothing.
test: $(RUNNER) $(TCGEN) $(LIB_A) $(LIB_SO) $(EX_CCSD) $(ALLOC_FAIL) $(ALLOC_CLI)
	$(Q)$(TEST_ENV) bash scripts/test.sh full

# make check: what every edit can afford. Every suite runs whole except the
# slow ones (CHECK_SLOW: emit compiles every algorithm, each plan test ranks
# at full cost; a minute or more each), of which the tests named here run.
# A pattern that matches no test fails, so a renamed test is noticed.
CHECK_SLOW  := emit plan
CHECK_TESTS := $(filter-out $(CHECK_SLOW),$(SUITES)) \
               'emit/golden*' 'emit/errors*' 'emit/names that*' 'emit/header*' \
               'emit/numbers*' 'emit/Fortran*' 'plan/estimate: chosen*' 'plan/wisdom: export*' \
               'plan/wisdom: a remembered*'
check: $(RUNNER) $(TCGEN) $(LIB_A) $(LIB_SO)
	$(Q)$(TEST_ENV) bash scripts/test.sh check $(CHECK_TESTS)

# LeakSanitizer (gcc 12) misreads the dynamic TLS of dlopen'ed BLAS
# libraries and crashes at exit ("Tracer caught signal 11") once enough
# modules and threads have come and gone; use_tls=0 avoids reading it, and
# tests/lsan.supp names the system libraries that keep memory only there.
test-asan:
	$(Q)$(MAKE) --no-print-directory BUILD=build/asan OPT="-O1 -g" \
	  SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
	  ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS="use_tls=0:print_suppressions=0:suppressions=$(CURDIR)/tests/lsan.supp" test

# Parser fuzzing: libFuzzer needs clang; its corpus lives in tests/fuzz/corpus.
FUZZ_BIN := build/fuzz/fuzz_parser
$(FUZZ_BIN): tests/fuzz/fuzz_parser.c $(LIB_SRC) parser/grammar.y parser/lexer.l | $(DEPS_OK)
	$(Q)bash scripts/install-deps.sh fuzz
	$(Q)$(MAKE) --no-print-directory BUILD=build/fuzz CC=clang OPT="-O1 -g" \
	  MODULES="ast parser" SAN="-fsanitize=fuzzer-no-link,address,undefined" build/fuzz/libtcgen.a
	$(Q)clang $(CPPFLAGS) -Ibuild/fuzz/gen -std=c11 -O1 -g -fsanitize=fuzzer,address,undefined \
	  -o $@ tests/fuzz/fuzz_parser.c build/fuzz/libtcgen.a $(LDLIBS)

fuzz: $(FUZZ_BIN)
	$(Q)mkdir -p tests/fuzz/corpus
	$(FUZZ_BIN) -max_total_time=$(FUZZ_SECONDS) -max_len=512 -artifact_prefix=tests/fuzz/ \
	  -dict=tests/fuzz/contraction.dict tests/fuzz/corpus

# The paper's experiments (bench/README.md). bench/paper.sh records how long
# it ran in bench/results/paper_times.tsv (total, seconds); the other
# scripts come on top: the emitted C against numpy and a transpose + dgemm
# (peers.sh, installs numpy), tcgen.einsum against numpy.einsum (python.sh)
# the permutation kernel against memcpy, and what the machine's threads
# give together (scaling.sh: the bound of any threaded speedup).
bench: $(TCGEN) $(LIB_A) $(LIB_SO)
	bash bench/predict_speed.sh $(TCGEN)
	bash bench/execute_overhead.sh $(TCGEN)
	bash bench/prediction.sh $(TCGEN)
	bash bench/paper.sh $(TCGEN)
	bash scripts/install-deps.sh bench
	bash bench/peers.sh $(TCGEN)
	bash bench/python.sh $(LIB_SO)
	bash bench/permute_speed.sh $(BUILD)
	bash bench/tapp.sh $(BUILD)
	bash bench/types.sh $(TCGEN)
	bash bench/scaling.sh $(TCGEN)

clean:
	rm -rf $(BUILD)/obj $(BUILD)/gen $(BUILD)/tests $(BUILD)/test-logs build/asan build/fuzz \
	  $(TCGEN) $(LIB_A) $(LIB_SO) $(BUILD)/$(TC_SONAME)


-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_OBJ:.o=.d)
