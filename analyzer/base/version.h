#ifndef LDPROF_VERSION_H
#define LDPROF_VERSION_H
#define LDPROF_VERSION "0.1.0"
#endif
