# install.mk - make install, make uninstall, make test-install (included by
# the top Makefile, which defines BUILD, CC, LDLIBS, LIB_A, LIB_SO, TCGEN, Q).
#
#   make install   PREFIX=/usr/local DESTDIR=   bin/tcgen, lib/libtcgen.{a,so},
#                  include/tcgen.h, lib/pkgconfig/tcgen.pc, share/man/man1/tcgen.1
#   make uninstall PREFIX=... DESTDIR=...       removes exactly those files, then
#                  the directories install created, if they are empty
#   make test-install                           tests/install_test.sh
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

TC_LIB_VERSION := $(shell sed -n 's/^.define TC_VERSION "\([0-9.]*\)".*/\1/p' include/tcgen.h)
TC_SO_MAJOR    := $(firstword $(subst ., ,$(TC_LIB_VERSION)))
TC_SONAME      := libtcgen.so.$(TC_SO_MAJOR)
TC_SO_FILE     := libtcgen.so.$(TC_LIB_VERSION)

TC_INSTALLED := $(BINDIR)/tcgen $(LIBDIR)/libtcgen.a $(LIBDIR)/$(TC_SO_FILE) \
                $(LIBDIR)/$(TC_SONAME) $(LIBDIR)/libtcgen.so $(INCLUDEDIR)/tcgen.h \
                $(PKGCONFIGDIR)/tcgen.pc $(MANDIR)/man1/tcgen.1
TC_MADE_TAG  := \# make uninstall removes these directories if empty:

# In tcgen.pc, libdir and includedir relative to ${prefix} when under it.
tc_pc_dir = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))

install: all
	$(if $(Q),@echo "  INSTALL $(DESTDIR)$(PREFIX)")
	$(Q)set -e; \
	if [ -z "$(TC_LIB_VERSION)" ] || [ -z "$(TC_SO_MAJOR)" ]; then \
	  echo "install: no TC_VERSION in include/tcgen.h" >&2; exit 1; fi; \
	pc='$(DESTDIR)$(PKGCONFIGDIR)/tcgen.pc'; \
	made=$$(sed -n 's/^$(TC_MADE_TAG)//p' "$$pc" 2>/dev/null || true); \
	for d in '$(BINDIR)' '$(LIBDIR)' '$(INCLUDEDIR)' '$(PKGCONFIGDIR)' '$(MANDIR)/man1'; do \
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
	install -m 644 include/tcgen.h '$(DESTDIR)$(INCLUDEDIR)/tcgen.h'; \
	install -m 644 man/tcgen.1 '$(DESTDIR)$(MANDIR)/man1/tcgen.1'; \
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(call tc_pc_dir,$(LIBDIR))|' \
	    -e 's|@INCLUDEDIR@|$(call tc_pc_dir,$(INCLUDEDIR))|' \
	    -e 's|@VERSION@|$(TC_LIB_VERSION)|' -e 's|@LIBS_PRIVATE@|$(LDLIBS)|' \
	    scripts/tcgen.pc.in > "$$pc.tmp"; \
	made=$$(printf '%s\n' $$made | LC_ALL=C sort -u | tr '\n' ' '); \
	[ -z "$${made% }" ] || echo '$(TC_MADE_TAG)' "$${made% }" >> "$$pc.tmp"; \
	chmod 644 "$$pc.tmp"; mv -f "$$pc.tmp" "$$pc"

uninstall:
	$(if $(Q),@echo "  UNINSTALL $(DESTDIR)$(PREFIX)")
	$(Q)set -e; \
	made=$$(sed -n 's/^$(TC_MADE_TAG)//p' '$(DESTDIR)$(PKGCONFIGDIR)/tcgen.pc' 2>/dev/null || true); \
	rm -f $(foreach f,$(TC_INSTALLED),'$(DESTDIR)$(f)'); \
	for d in $$(printf '%s\n' $$made | LC_ALL=C sort -r); do \
	  rmdir "$$d" 2>/dev/null || true; \
	done

# The test installs with the same BUILD (and OPT, SAN from the command line,
# through MAKEFLAGS), so nothing is rebuilt. $(MAKE) on the line lets the
# script's make share the jobserver.
test-install: all
	$(Q)TCGEN='$(TCGEN)' BUILD='$(BUILD)' CC='$(CC)' SAN='$(SAN)' MAKE='$(MAKE)' \
	  bash tests/install_test.sh
