# providers/ofi/configure.m4: the ofi provider needs libfabric (pkg-config libfabric).
# Called from configure.ac; without libfabric, --enable-ofi=auto builds everything else.
AC_DEFUN([XRMA_PROV_OFI_CONFIGURE], [
	XRMA_PROVIDER_ENABLE([ofi], [build the libfabric provider], [
		PKG_CHECK_MODULES([FABRIC], [libfabric], [],
			[xrma_prov_ofi_ok=no
			 xrma_prov_ofi_why="libfabric not found: install the Debian package libfabric-dev"])
	])
])
