/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * include/dis/dis_types.h: the same header as dis_types.h, for programs that
 * include it as <dis/dis_types.h>.
 */
#include "../dis_types.h"
