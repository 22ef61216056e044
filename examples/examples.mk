# make examples - builds and runs the three examples (examples/README.md),
# then checks their outputs with tests/examples_test.sh. Included by the top
# Makefile (BUILD, CC, CPPFLAGS, CFLAGS, WARN, LDLIBS, LIB_A, TCGEN, Q).
# Outputs go to $(BUILD)/examples/{ccsd,emitted,fortran}.
#   make examples CCSD_ARGS="12 40"     other orbital counts (o v)
#   make examples-run                   only build and run them (make test
#                                       runs this, then every tests/*_test.sh)

EX_OUT    := $(BUILD)/examples
EX_CCSD   := $(EX_OUT)/ccsd/ccsd
CCSD_ARGS ?= 10 32

# Built in parallel, run one after the other so that their timings (and
# tcgen's micro-benchmarks) do not disturb each other.
.PHONY: examples-run examples-ccsd examples-emitted examples-fortran
examples: examples-run
	$(Q)TCGEN=$(TCGEN) BUILD=$(BUILD) bash tests/examples_test.sh

examples-run: $(EX_CCSD) $(TCGEN)
	$(Q)$(MAKE) --no-print-directory examples-emitted
	$(Q)$(MAKE) --no-print-directory examples-fortran
	$(Q)$(MAKE) --no-print-directory examples-ccsd

# The ccsd program links the library like any user, with CFLAGS so that a
# sanitizer build (make test-asan) links the sanitizer runtime.
$(EX_CCSD): examples/ccsd/ccsd.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -o $@ $< $(LIB_A) $(LDLIBS)

# Each example's output is kept in output.txt and shown; a failure shows it too.
examples-ccsd: $(EX_CCSD)
	$(if $(Q),@echo "  RUN     $<")
	$(Q)cd $(dir $<) && ./ccsd $(CCSD_ARGS) ccsd.wisdom > output.txt 2>&1; s=$$?; \
	  sed 's/^/    /' output.txt; exit $$s

# The emitted code is plain C99 built by its own Makefile, without
# sanitizers; it only needs tcgen (absolute paths: that make runs in examples/*).
examples-emitted examples-fortran: examples-%: $(TCGEN)
	$(if $(Q),@echo "  CHECK   examples/$*")
	@mkdir -p $(EX_OUT)/$*
	$(Q)$(MAKE) --no-print-directory $(if $(Q),-s) -C examples/$* check \
	  TCGEN=$(abspath $(TCGEN)) OUT=$(abspath $(EX_OUT))/$* $(if $(Q),TCGENFLAGS=-q,TCGENFLAGS=) \
	  > $(EX_OUT)/$*/output.txt 2>&1; s=$$?; sed 's/^/    /' $(EX_OUT)/$*/output.txt; exit $$s
