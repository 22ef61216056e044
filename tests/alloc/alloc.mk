# tests/alloc/alloc.mk - the programs tests/alloc_fail_test.sh runs: one that
# fails tcgen's allocations one at a time (alloc_fail.c), and the tcgen
# command whose tc_parse can be made to run out of memory (cli_parse_oom.c).
# --wrap redirects the calls made by libtcgen.a's objects and the test's,
# not those inside libc, hwloc or the BLAS library; hwloc_topology_init is
# wrapped to count how often the machine is detected.
ALLOC_FAIL := $(BUILD)/tests/alloc_fail
ALLOC_CLI  := $(BUILD)/tests/tcgen_parse_oom
ALLOC_WRAP := malloc calloc realloc aligned_alloc strdup free mmap munmap hwloc_topology_init
alloc_comma := ,
alloc_empty :=
alloc_space := $(alloc_empty) $(alloc_empty)

$(ALLOC_FAIL): $(BUILD)/obj/tests/alloc/alloc_fail.o $(LIB_A)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) -Wl,$(subst $(alloc_space),$(alloc_comma),$(ALLOC_WRAP:%=--wrap=%)) \
	  -o $@ $< $(LIB_A) $(LDLIBS)

$(ALLOC_CLI): $(BUILD)/obj/tests/alloc/cli_parse_oom.o $(CLI_OBJ) $(LIB_A)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) -Wl,--wrap=tc_parse,--wrap=malloc,--wrap=calloc,--wrap=realloc \
	  -o $@ $< $(CLI_OBJ) $(LIB_A) $(LDLIBS)

-include $(BUILD)/obj/tests/alloc/alloc_fail.d $(BUILD)/obj/tests/alloc/cli_parse_oom.d
