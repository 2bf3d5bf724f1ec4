#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/install/check_install.sh: build and run one small program per API against an
# installed tree, finding headers and libraries only through pkg-config.
# Usage: check_install.sh PKGCONFIGDIR [DESTDIR]   (run by `make installcheck`)
set -eu
pcdir=$1
destdir=${2:-}
cc=${CC:-cc}
work=$(mktemp -d "${TMPDIR:-/tmp}/xrma-installcheck.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

PKG_CONFIG_PATH=$destdir$pcdir
export PKG_CONFIG_PATH
if [ -n "$destdir" ]; then
	PKG_CONFIG_SYSROOT_DIR=$destdir
	export PKG_CONFIG_SYSROOT_DIR
fi
XRMA_FABRIC=installcheck-$$
export XRMA_FABRIC

cat > "$work/xrma.c" <<'C'
#include <stdio.h>
#include <xrma/xrma.h>
int main(void)
{
	struct xrma_ctx *ctx;
	int ret = xrma_ctx_open(NULL, &ctx);

	if (ret) {
		fprintf(stderr, "xrma_ctx_open: %s\n", xrma_strerror(ret));
		return 1;
	}
	return xrma_ctx_close(ctx) ? 1 : 0;
}
C
cat > "$work/sisci.c" <<'C'
#include <stdio.h>
#include <sisci_api.h>
int main(void)
{
	sci_error_t err;
	sci_desc_t sd;

	SCIInitialize(0, &err);
	if (err != SCI_ERR_OK)
		return 1;
	SCIOpen(&sd, 0, &err);
	if (err != SCI_ERR_OK)
		return 1;
	SCIClose(sd, 0, &err);
	SCITerminate();
	return err == SCI_ERR_OK ? 0 : 1;
}
C
cat > "$work/scif.c" <<'C'
#include <scif.h>
int main(void)
{
	scif_epd_t epd = scif_open();

	if (epd == SCIF_OPEN_FAILED)
		return 1;
	return scif_close(epd) == 0 ? 0 : 1;
}
C
cat > "$work/pximc.c" <<'C'
#include <pximc.h>
int main(void)
{
	/* No vendor library in an empty vendor directory: the Dispatcher says so. */
	tPXIMC_Status st = PXIMC_cleanup();

	return st == PXIMC_NO_PROVIDER || st == PXIMC_SUCCESS ? 0 : 1;
}
C
mkdir "$work/vendors"
PXIMC_VENDOR_PATH=$work/vendors
export PXIMC_VENDOR_PATH

for api in xrma sisci scif pximc; do
	cflags=$(pkg-config --cflags "$api")
	libs=$(pkg-config --libs "$api")
	libdir=$(pkg-config --variable=libdir "$api")
	# A staged install (DESTDIR) is not where the libraries' own run paths point:
	# tell the linker where their dependencies (libxrma) are.
	extra=
	[ -z "$destdir" ] || extra="-Wl,-rpath-link,$destdir$libdir"
	# shellcheck disable=SC2086
	$cc $cflags -o "$work/$api" "$work/$api.c" $libs $extra
	if ! LD_LIBRARY_PATH=$destdir$libdir "$work/$api"; then
		echo "check_install: the $api program built against the installed tree failed" >&2
		exit 1
	fi
	echo "check_install: $api: built with pkg-config and ran"
done
