#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/conformance/scif/check_header.sh: <scif.h> alone is enough for what MPSS
# programs take from it: MPSS's header includes stdint.h, unistd.h, errno.h,
# sys/select.h and poll.h, so a program using uint64_t, close(), errno, fd_set
# and struct pollfd with no other include must compile, as C11 (strict and GNU)
# and, when g++ is installed, as C++11. Constant values are checked on the way.
src=${XRMA_TEST_SRCDIR:-.}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/use.c" <<'EOC'
#include <scif.h>
_Static_assert(SCIF_PORT_RSVD == 1088, "reserved ports end");
_Static_assert(SCIF_ADMIN_PORT_END == 1024, "privileged ports end");
_Static_assert(SCIF_MAP_FIXED == 0x10, "map flag");
_Static_assert(SCIF_POLLIN == POLLIN, "poll bits are poll(2)'s");

int use_everything(int fd)
{
	uint64_t bytes = sizeof(struct scif_portID);
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct timeval tv = { 0, 0 };
	fd_set readable;

	FD_ZERO(&readable);
	FD_SET(fd, &readable);
	if (select(fd + 1, &readable, NULL, NULL, &tv) < 0 && errno == EINTR)
		return -1;
	if (poll(&pfd, 1, 0) < 0 && errno == EAGAIN)
		return -1;
	if (close(fd) && errno == EBADF)
		return -1;
	return (int)(bytes + (uint64_t)getpid() + (uint64_t)scif_get_fd(fd));
}

int main(void)
{
	return use_everything(-1) > 0 ? 0 : 1;
}
EOC
cc=${CC:-cc}
for std in c11 gnu11; do
	$cc -std=$std -pedantic -Wall -Wextra -Werror -I"$src/include" -c "$tmp/use.c" -o "$tmp/$std.o" ||
		{ echo "FAIL: a program using only <scif.h> does not compile as $std"; exit 1; }
	echo "PASS: a program using only <scif.h> compiles as $std -pedantic"
done
if command -v g++ >/dev/null 2>&1; then
	sed -e 's/_Static_assert/static_assert/' -e 's/{ .fd = fd, .events = POLLIN }/{ fd, POLLIN, 0 }/' \
		"$tmp/use.c" > "$tmp/use.cc"
	g++ -std=c++11 -pedantic -Wall -Wextra -Werror -I"$src/include" -c "$tmp/use.cc" \
		-o "$tmp/cc.o" || { echo "FAIL: a program using only <scif.h> does not compile as C++11"; exit 1; }
	echo "PASS: a program using only <scif.h> compiles as C++11 -pedantic"
else
	echo "SKIP: no g++ for the C++ check"
fi
exit 0
