/* report_int.h - internals shared by the report module's files. */
#ifndef PODSIM_REPORT_INT_H
#define PODSIM_REPORT_INT_H

#include "report.h"

/* Text into HTML/XML with &, <, >, " escaped (html.c). */
void report_esc(FILE *out, const char *s);

#endif
