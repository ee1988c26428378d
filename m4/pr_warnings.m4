# pr_warnings.m4 -- pagerace's compiler warning set.            -*- Autoconf -*-
#
# PR_WARN_CFLAGS: fill and AC_SUBST WARN_CFLAGS with every flag of the list
# below that the C compiler accepts (tested with -Werror, so clang's
# "unknown warning option" counts as unsupported).  Unused-parameter warnings
# stay on on purpose: mark deliberately unused ones with (void)x.
# Uses AX_APPEND_COMPILE_FLAGS from the system autoconf-archive.
AC_DEFUN([PR_WARN_CFLAGS], [
  AC_REQUIRE([AC_PROG_CC])
  AC_LANG_PUSH([C])
  AX_APPEND_COMPILE_FLAGS([-Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes],
                          [WARN_CFLAGS], [-Werror])
  AC_LANG_POP([C])
  AC_SUBST([WARN_CFLAGS])
])
