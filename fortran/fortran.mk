# fortran.mk - the Fortran module tcgen (fortran/tcgen.f90), built when a
# Fortran compiler is there (included by the top Makefile, which defines
# BUILD and Q; scripts/install.mk installs what it builds).
#
#   $(BUILD)/fortran/tcgen.mod    the module file (-I$(BUILD)/fortran)
#   $(BUILD)/libtcgen_fortran.a   the code of its wrappers (link it before
#                                 libtcgen: ... -ltcgen_fortran -ltcgen)
#
# TC_FC names the compiler (default gfortran, or $(FC) when set to something
# other than make's f77); without it, nothing here is built and make install
# installs only the source (other compilers compile it themselves).

TC_FC      ?= $(if $(filter f77,$(FC)),gfortran,$(FC))
TC_FFLAGS  ?= -std=f2018 -O2 -g -fPIC -Wall -Wextra -pedantic -Werror
TC_FC_PATH := $(shell command -v $(TC_FC) 2>/dev/null)
TC_F_DIR   := $(BUILD)/fortran
TC_F_MOD   := $(TC_F_DIR)/tcgen.mod
TC_F_LIB   := $(BUILD)/libtcgen_fortran.a

ifneq ($(TC_FC_PATH),)
all test: $(TC_F_LIB)

# One compile writes the object and tcgen.mod (-J: into $(TC_F_DIR)); the
# archive is the target, as gfortran leaves an unchanged .mod's time alone.
$(TC_F_LIB): fortran/tcgen.f90 fortran/fortran.mk
	@mkdir -p $(TC_F_DIR)
	$(if $(Q),@echo "  FC      $<")
	$(Q)$(TC_FC) $(TC_FFLAGS) -J$(TC_F_DIR) -c -o $(TC_F_DIR)/tcgen.o $<
	$(if $(Q),@echo "  AR      $(TC_F_LIB)")
	$(Q)rm -f $(TC_F_LIB) && ar rcs $(TC_F_LIB) $(TC_F_DIR)/tcgen.o
endif

.PHONY: clean-fortran
clean: clean-fortran
clean-fortran:
	rm -rf $(TC_F_DIR) $(TC_F_LIB)
