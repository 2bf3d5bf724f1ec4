#!/bin/sh
# autogen.sh: generate configure and Makefile.in from a git checkout (release tarballs
# ship them already). Needs autoconf, automake, libtool and pkg-config.
set -e
cd "$(dirname "$0")"
mkdir -p m4 build-aux
autoreconf -fi
