/* The program's modules: every statement table (handed to each database connection,
 * db_connect) and every route table of the API (matched in order by the dispatcher).
 * The API's modules come from Makefile.am's API_MODULES, through the generated
 * src/api/modules.def (MODULE(name) for each). */
#ifndef COLLABD_MODULES_H
#define COLLABD_MODULES_H

#include "db/db.h"
#include "http/router.h"

/* Every module's statements, ended by NULL. */
extern const db_stmt *const statements[];
/* The API's route tables (each ended by a route whose method is NULL), ended by NULL. */
extern const route *const route_tables[];
/* The module of each route table (src/api/<name>.c), in the same order. */
extern const char *const route_table_names[];

#endif
