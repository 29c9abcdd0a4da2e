/* Audit entries between a worker and the parent: length-prefixed records. */
#ifndef LDPROF_AUDIT_WIRE_H
#define LDPROF_AUDIT_WIRE_H

#include "model/audit.h"

/* 0, or -1 when the pipe is gone. Frees nothing. */
int wire_send(int fd, const struct audit_entry *e);
/* 1 with *e filled, 0 at the end, -1 on a broken record. */
int wire_recv(int fd, struct audit_entry *e);

#endif
