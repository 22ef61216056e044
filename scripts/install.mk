# install.mk - make install, make uninstall, make test-install (included by
# the top Makefile, which defines BUILD, CC, LDLIBS, LIB_A, LIB_SO, TCGEN, Q).
#
#   make install   PREFIX=/usr/local DESTDIR=   bin/tcgen, lib/libtcgen.{a,so},
#                  include/tcgen.h, lib/pkgconfig/tcgen.pc, share/man/man1/tcgen.1,
#                  lib/cmake/tcgen/tcgenConfig{,Version}.cmake (find_package),
#                  include/tcgen.f90 (module tcgen's source) and, when
#                  gfortran built them (fortran/fortran.mk), include/tcgen.mod
#                  and lib/libtcgen_fortran.a,
#                  the Python package in PYTHONDIR (lib/tcgen/python/tcgen/*.py,
#                  with _installed.py naming the installed libtcgen.so),
#                  include/tapp.h and include/tapp/ (TAPP, docs/tapp.md)
#   make uninstall PREFIX=... DESTDIR=...       removes exactly those files, then
#                  the directories install created, if they are empty
#   make test-install                           tests/install_test.sh
#   PC_RPATH=auto|yes|no                        tcgen.pc's Libs carry
#                  -Wl,-rpath,${libdir} (auto: unless LIBDIR is one of the
#                  dynamic linker's own directories), so that a program
#                  built with `pkg-config --cflags --libs tcgen` runs without
#                  LD_LIBRARY_PATH
#
# tcgen.pc also gives Libs.private (pkg-config --static) and the variable
# static_libs, the archive with what it needs, for a program that should not
# depend on libtcgen.so: cc prog.c $(pkg-config --cflags tcgen)
# $(pkg-config --variable=static_libs tcgen). man finds the page in
# $(PREFIX)/share/man when $(PREFIX)/bin is on PATH (man-db maps each PATH
# entry DIR/bin to DIR/share/man); install says so when it is not.
#
# The shared library is installed as libtcgen.so.MAJOR.MINOR.PATCH (from
# TC_VERSION in include/tcgen.h) with the links libtcgen.so.MAJOR (its
# soname, TC_SONAME) and libtcgen.so. Install records the directories it had
# to create in a '#' comment of the installed tcgen.pc, so that uninstall
# never removes a directory it did not make (such as an empty
# /usr/local/bin). Staged installs (DESTDIR set) record none.

PREFIX       ?= /usr/local
DESTDIR      ?=
BINDIR       ?= $(PREFIX)/bin
LIBDIR       ?= $(PREFIX)/lib
INCLUDEDIR   ?= $(PREFIX)/include
MANDIR       ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
CMAKEDIR     ?= $(LIBDIR)/cmake/tcgen
PYTHONDIR    ?= $(LIBDIR)/tcgen/python

TC_LIB_VERSION := $(shell sed -n 's/^.define TC_VERSION "\([0-9.]*\)".*/\1/p' include/tcgen.h)
TC_SO_MAJOR    := $(firstword $(subst ., ,$(TC_LIB_VERSION)))
TC_SONAME      := libtcgen.so.$(TC_SO_MAJOR)
TC_SO_FILE     := libtcgen.so.$(TC_LIB_VERSION)

TC_INSTALLED := $(BINDIR)/tcgen $(LIBDIR)/libtcgen.a $(LIBDIR)/$(TC_SO_FILE) \
                $(LIBDIR)/$(TC_SONAME) $(LIBDIR)/libtcgen.so $(INCLUDEDIR)/tcgen.h \
                $(PKGCONFIGDIR)/tcgen.pc $(MANDIR)/man1/tcgen.1 \
                $(CMAKEDIR)/tcgenConfig.cmake $(CMAKEDIR)/tcgenConfigVersion.cmake \
                $(INCLUDEDIR)/tcgen.f90 $(INCLUDEDIR)/tcgen.mod $(LIBDIR)/libtcgen_fortran.a \
                $(addprefix $(PYTHONDIR)/tcgen/,$(notdir $(wildcard python/tcgen/*.py)) _installed.py) \
                $(INCLUDEDIR)/tapp.h $(addprefix $(INCLUDEDIR)/tapp/,$(notdir $(wildcard include/tapp/*.h)))
TC_MADE_TAG  := \# make uninstall removes these directories if empty:

# What libtcgen.a links against, as a CMake list: -lhwloc -ldl ... -> hwloc;dl;...
tc_empty     :=
tc_space     := $(tc_empty) $(tc_empty)
tc_cmake_libs = $(subst $(tc_space),;,$(strip $(patsubst -l%,%,$(LDLIBS))))

# In tcgen.pc, libdir and includedir relative to ${prefix} when under it.
tc_pc_dir = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))

# The directories the dynamic linker searches without being told
# (ld.so --list-diagnostics lists them as system_dirs); any other LIBDIR,
# /usr/local/lib included (in ld.so.conf, but found only after ldconfig),
# gets an rpath in tcgen.pc. Deferred: the compiler is asked only on install.
PC_RPATH     ?= auto
tc_comma     := ,
tc_multiarch  = $(shell $(CC) -print-multiarch 2>/dev/null)
tc_sys_libs   = /lib /usr/lib /lib64 /usr/lib64 $(addprefix /lib/,$(tc_multiarch)) \
                $(addprefix /usr/lib/,$(tc_multiarch))
tc_rpath_on   = $(or $(filter yes,$(PC_RPATH)),$(and $(filter auto,$(PC_RPATH)),$(if \
                $(filter $(patsubst %/,%,$(LIBDIR)),$(tc_sys_libs)),,yes)))
tc_pc_rpath   = $(if $(tc_rpath_on),-Wl$(tc_comma)-rpath$(tc_comma)$${libdir} )

install: all
	$(if $(Q),@echo "  INSTALL $(DESTDIR)$(PREFIX)")
	$(Q)set -e; \
	if [ -z "$(TC_LIB_VERSION)" ] || [ -z "$(TC_SO_MAJOR)" ]; then \
	  echo "install: no TC_VERSION in include/tcgen.h" >&2; exit 1; fi; \
	for d in '$(PREFIX)' '$(BINDIR)' '$(LIBDIR)' '$(INCLUDEDIR)' '$(MANDIR)' '$(PKGCONFIGDIR)' '$(CMAKEDIR)' '$(PYTHONDIR)'; do \
	  case $$d in /*) ;; *) echo "install: '$$d' is not an absolute path (PREFIX=/opt/tcgen)" >&2; exit 1;; esac; \
	done; \
	case '$(PC_RPATH)' in auto|yes|no) ;; \
	  *) echo "install: PC_RPATH is '$(PC_RPATH)'; it takes auto, yes or no" >&2; exit 1;; esac; \
	pc='$(DESTDIR)$(PKGCONFIGDIR)/tcgen.pc'; \
	made=$$(sed -n 's/^$(TC_MADE_TAG)//p' "$$pc" 2>/dev/null || true); \
	for d in '$(BINDIR)' '$(LIBDIR)' '$(INCLUDEDIR)/tapp' '$(PKGCONFIGDIR)' '$(MANDIR)/man1' '$(CMAKEDIR)' '$(PYTHONDIR)/tcgen'; do \
	  a=$$d; \
	  while [ -z '$(DESTDIR)' ] && [ ! -d "$$a" ] && [ "$$a" != / ] && [ "$$a" != . ]; do \
	    made="$$made $$a"; a=$$(dirname "$$a"); \
	  done; \
	  mkdir -p '$(DESTDIR)'"$$d"; \
	done; \
	install -m 755 '$(TCGEN)' '$(DESTDIR)$(BINDIR)/tcgen'; \
	install -m 644 '$(LIB_A)' '$(DESTDIR)$(LIBDIR)/libtcgen.a'; \
	install -m 755 '$(LIB_SO)' '$(DESTDIR)$(LIBDIR)/$(TC_SO_FILE)'; \
	ln -sf '$(TC_SO_FILE)' '$(DESTDIR)$(LIBDIR)/$(TC_SONAME)'; \
	ln -sf '$(TC_SONAME)' '$(DESTDIR)$(LIBDIR)/libtcgen.so'; \
	install -m 644 include/tcgen.h include/tapp.h '$(DESTDIR)$(INCLUDEDIR)/'; \
	install -m 644 include/tapp/*.h '$(DESTDIR)$(INCLUDEDIR)/tapp/'; \
	install -m 644 fortran/tcgen.f90 '$(DESTDIR)$(INCLUDEDIR)/tcgen.f90'; \
	$(if $(TC_FC_PATH),install -m 644 '$(TC_F_MOD)' '$(DESTDIR)$(INCLUDEDIR)/tcgen.mod'; \
	  install -m 644 '$(TC_F_LIB)' '$(DESTDIR)$(LIBDIR)/libtcgen_fortran.a';) \
	install -m 644 man/tcgen.1 '$(DESTDIR)$(MANDIR)/man1/tcgen.1'; \
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(call tc_pc_dir,$(LIBDIR))|' \
	    -e 's|@INCLUDEDIR@|$(call tc_pc_dir,$(INCLUDEDIR))|' \
	    -e 's|@VERSION@|$(TC_LIB_VERSION)|' -e 's|@LIBS_PRIVATE@|$(LDLIBS)|' \
	    -e 's|@RPATH@|$(tc_pc_rpath)|' \
	    scripts/tcgen.pc.in > "$$pc.tmp"; \
	for f in tcgenConfig tcgenConfigVersion; do \
	  sed -e 's|@VERSION@|$(TC_LIB_VERSION)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	      -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@SO_FILE@|$(TC_SO_FILE)|' \
	      -e 's|@SONAME@|$(TC_SONAME)|' -e 's|@STATIC_LIBS@|$(tc_cmake_libs)|' \
	      scripts/$$f.cmake.in > '$(DESTDIR)$(CMAKEDIR)'/$$f.cmake.tmp; \
	  chmod 644 '$(DESTDIR)$(CMAKEDIR)'/$$f.cmake.tmp; \
	  mv -f '$(DESTDIR)$(CMAKEDIR)'/$$f.cmake.tmp '$(DESTDIR)$(CMAKEDIR)'/$$f.cmake; \
	done; \
	install -m 644 python/tcgen/*.py '$(DESTDIR)$(PYTHONDIR)/tcgen/'; \
	printf '# written by make install: the libtcgen this package loads\nLIBRARY = %s\n' \
	  "'$(LIBDIR)/$(TC_SONAME)'" > '$(DESTDIR)$(PYTHONDIR)/tcgen/_installed.py'; \
	chmod 644 '$(DESTDIR)$(PYTHONDIR)/tcgen/_installed.py'; \
	made=$$(printf '%s\n' $$made | LC_ALL=C sort -u | tr '\n' ' '); \
	[ -z "$${made% }" ] || echo '$(TC_MADE_TAG)' "$${made% }" >> "$$pc.tmp"; \
	chmod 644 "$$pc.tmp"; mv -f "$$pc.tmp" "$$pc"; \
	case ":$$PATH:" in *':$(BINDIR):'*|*':$(BINDIR)/:'*) ;; \
	  *) [ -n '$(DESTDIR)' ] || echo "note: $(BINDIR) is not on PATH; with it there (export PATH=$(BINDIR):\$$PATH) tcgen runs by name and man tcgen finds its page" >&2;; \
	esac; \
	echo "Python: PYTHONPATH=$(PYTHONDIR) python3 -c 'import tcgen'"

uninstall:
	$(if $(Q),@echo "  UNINSTALL $(DESTDIR)$(PREFIX)")
	$(Q)set -e; \
	made=$$(sed -n 's/^$(TC_MADE_TAG)//p' '$(DESTDIR)$(PKGCONFIGDIR)/tcgen.pc' 2>/dev/null || true); \
	rm -f $(foreach f,$(TC_INSTALLED),'$(DESTDIR)$(f)'); \
	rm -rf '$(DESTDIR)$(PYTHONDIR)/tcgen/__pycache__'; \
	for d in $$(printf '%s\n' $$made | LC_ALL=C sort -r); do \
	  rmdir "$$d" 2>/dev/null || true; \
	done

# The test installs with the same BUILD (and OPT, SAN from the command line,
# through MAKEFLAGS), so nothing is rebuilt. $(MAKE) on the line lets the
# script's make share the jobserver.
test-install: all
	$(Q)TCGEN='$(TCGEN)' BUILD='$(BUILD)' CC='$(CC)' SAN='$(SAN)' MAKE='$(MAKE)' \
	  bash tests/install_test.sh
