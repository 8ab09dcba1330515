/* store_int.h - internals of the store module shared by store.c (open,
 * write, read, digest) and merge.c (store_merge). Other modules use
 * store.h. */
#ifndef PODSIM_STORE_INT_H
#define PODSIM_STORE_INT_H

#include "store.h"

#include <sqlite3.h>

struct store {
	sqlite3 *db;
	char *path;
};

/* Schema version 8's DDL: the serving tables (serve.c). */
extern const char store_serve_ddl[];

#endif
