/* CSV fields (RFC 4180), shared by every CSV renderer. */
#ifndef LDPROF_CSV_H
#define LDPROF_CSV_H

#include <stdio.h>

/* One CSV field: quoted when it holds a comma, quote or newline; NULL is empty. */
void csv_field(FILE *f, const char *s);

#endif
