# providers/pximc/configure.m4: PXImc as a transport. The Dispatcher is loaded at run time,
# so only dlopen is needed at build time.
AC_DEFUN([XRMA_PROV_PXIMC_CONFIGURE], [
	XRMA_PROVIDER_ENABLE([pximc], [build the PXImc transport provider], [
		AC_CHECK_LIB([dl], [dlopen], [:],
			[xrma_prov_pximc_ok=no; xrma_prov_pximc_why="dlopen not found"])
	])
])
