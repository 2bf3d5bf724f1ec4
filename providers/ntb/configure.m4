# providers/ntb/configure.m4: the NTB device model, the default provider. It runs on the
# host fabric (providers/util) and needs nothing beyond it.
AC_DEFUN([XRMA_PROV_NTB_CONFIGURE], [
	XRMA_PROVIDER_ENABLE([ntb], [build the NTB device model provider (the default)], [])
])
