# providers/sci/configure.m4: the SCI interconnect model. It runs on the host fabric
# (providers/util) and needs nothing beyond it.
AC_DEFUN([XRMA_PROV_SCI_CONFIGURE], [
	XRMA_PROVIDER_ENABLE([sci], [build the SCI interconnect model provider], [])
])
