#!/bin/sh
# tests/conformance/pximc/check_header.sh: pximc.h must compile cleanly as ISO C11 with
# -pedantic and, when g++ is installed, as C++11; its constants must keep their values.
src=${XRMA_TEST_SRCDIR:-.}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/use.c" <<'EOC'
#include <pximc.h>
_Static_assert(PXIMC_INVALID_INTERFACE == (int32_t)0x80001001u, "status value");
_Static_assert(PXIMC_TIMEOUT == 0x10001001, "warning value");
_Static_assert(PXIMC_MAXIMUM_WINDOW_SIZE == 0xFFFFFFFFFFFFFFFFull, "sentinel");
tPXIMC_Status (_PXIMC_FUNC *use_cleanup)(void) = PXIMC_cleanup;
int main(void) { return use_cleanup == 0; }
EOC
cc=${CC:-cc}
$cc -std=c11 -pedantic -Wall -Wextra -Werror -I"$src/include" -c "$tmp/use.c" -o "$tmp/c.o" ||
	{ echo "FAIL: pximc.h as C11"; exit 1; }
echo "PASS: pximc.h compiles as C11 -pedantic"
if command -v g++ >/dev/null 2>&1; then
	sed 's/_Static_assert/static_assert/' "$tmp/use.c" > "$tmp/use.cc"
	g++ -std=c++11 -pedantic -Wall -Wextra -Werror -I"$src/include" -c "$tmp/use.cc" \
		-o "$tmp/cc.o" || { echo "FAIL: pximc.h as C++11"; exit 1; }
	echo "PASS: pximc.h compiles as C++11 -pedantic"
else
	echo "SKIP: no g++ for the C++ check"
fi
exit 0
