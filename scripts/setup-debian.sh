#!/bin/sh
# scripts/setup-debian.sh: install what building and testing xrma needs on Debian 12.
# The one list of build dependencies: README and .ci/run both call this script.
# Usage: scripts/setup-debian.sh [--docs]   (--docs also installs pandoc for the docs)
#        --bench: gnuplot-nox (the plots of make bench)
#        --fuzz: clang and libFuzzer (make fuzz); --valgrind: valgrind (make valgrind-examples)
# Runs apt-get directly as root, through sudo otherwise; does nothing when all is present.
set -eu

packages="build-essential autoconf automake libtool pkg-config \
libfabric-dev libhwloc-dev libcmocka-dev libinih-dev"

for arg in "$@"; do
	case $arg in
	--docs) packages="$packages pandoc" ;;
	--bench) packages="$packages gnuplot-nox" ;;
	--fuzz) packages="$packages clang libclang-rt-14-dev" ;;
	--valgrind) packages="$packages valgrind" ;;
	*) echo "usage: $0 [--docs] [--bench] [--fuzz] [--valgrind]" >&2; exit 2 ;;
	esac
done

missing=
for p in $packages; do
	if ! dpkg-query -W -f '${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed; then
		missing="$missing $p"
	fi
done
if [ -z "$missing" ]; then
	echo "setup-debian: all build dependencies are installed"
	exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
	as_root=
elif command -v sudo >/dev/null 2>&1; then
	as_root=sudo
else
	echo "setup-debian: need root or sudo to install:$missing" >&2
	exit 1
fi

echo "setup-debian: installing:$missing"
$as_root env DEBIAN_FRONTEND=noninteractive apt-get update
# shellcheck disable=SC2086 # the list is meant to split into words
$as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
