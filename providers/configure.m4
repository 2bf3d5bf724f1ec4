# providers/configure.m4: XRMA_PROVIDER_ENABLE, the --enable-<p>=auto|yes|no switch every
# provider's providers/<p>/configure.m4 uses. "auto" builds the provider when its
# checks pass; "yes" makes a failed check an error; "no" skips the checks.
#
# XRMA_PROVIDER_ENABLE(name, help, checks)
#   checks: shell code run unless the switch is "no"; it sets xrma_prov_<name>_ok=no and
#   xrma_prov_<name>_why="..." when a dependency is missing.
# Result: AM_CONDITIONAL XRMA_PROV_<NAME>, AC_DEFINE XRMA_PROV_<NAME>, and the name added
# to XRMA_PROVIDERS_BUILT (or "name (why)" to XRMA_PROVIDERS_SKIPPED) for the summary.
AC_DEFUN([XRMA_PROVIDER_ENABLE], [
	AC_ARG_ENABLE([$1],
		[AS_HELP_STRING([--enable-$1=auto|yes|no], [$2 (default: auto)])],
		[], [enable_$1=auto])
	AS_CASE([$enable_$1], [auto|yes|no], [],
		[AC_MSG_ERROR([--enable-$1 takes auto, yes or no, not '$enable_$1'])])
	xrma_prov_$1_ok=yes
	xrma_prov_$1_why=
	AS_IF([test "x$enable_$1" = xno],
		[xrma_prov_$1_ok=no; xrma_prov_$1_why="--disable-$1"],
		[$3])
	AS_IF([test "x$enable_$1" = xyes && test $xrma_prov_$1_ok = no],
		[AC_MSG_ERROR([--enable-$1=yes, but $xrma_prov_$1_why])])
	AC_MSG_CHECKING([whether to build the $1 provider])
	AC_MSG_RESULT([$xrma_prov_$1_ok${xrma_prov_$1_why:+ ($xrma_prov_$1_why)}])
	AM_CONDITIONAL([XRMA_PROV_]m4_toupper([$1]), [test $xrma_prov_$1_ok = yes])
	AS_IF([test $xrma_prov_$1_ok = yes],
		[AC_DEFINE([XRMA_PROV_]m4_toupper([$1]), [1], [Define to 1 when the $1 provider is built])
		 XRMA_PROVIDERS_BUILT="$XRMA_PROVIDERS_BUILT $1"],
		[XRMA_PROVIDERS_SKIPPED="${XRMA_PROVIDERS_SKIPPED:+$XRMA_PROVIDERS_SKIPPED, }$1 ($xrma_prov_$1_why)"])
])
