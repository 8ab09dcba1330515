/* report_int.h - internals shared by the report module's files. */
#ifndef PODSIM_REPORT_INT_H
#define PODSIM_REPORT_INT_H

#include "report.h"

/* Bytes with one decimal in the largest binary unit not above them; a
 * trailing ".0" is dropped ("80 GiB", "71.3 GiB", "512 MiB"). */
void report_bytes_text(double v, char *buf, size_t len);

/* The memory verdict in words (verdict.c), the same lines in the text
 * report and on the HTML page: `label` ("" for the scenario's GPU alone;
 * "on GPU" per GPU type on a mixed cluster; "verdict" for the plan's where
 * one GPU line does not say it) and its sentence. */
#define REPORT_MEM_LINES 3
#define REPORT_MEM_TEXT 256
typedef struct report_mem_lines {
	plan_verdict verdict; /* the plan's: exec_mem_verdict */
	int n;
	char label[REPORT_MEM_LINES][EXEC_NAME_MAX + 8];
	char text[REPORT_MEM_LINES][REPORT_MEM_TEXT];
} report_mem_lines;
void report_mem_verdict(const exec_result *r, report_mem_lines *out);
/* A class's verdict (exec_class_verdict): "fits", "tight", "OOM", and where
 * other_gpu makes it worse, "OOM on a100-sxm4-40g (allocated + runtime N of
 * C)" or "tight on ... (peak D of C)". */
void report_class_verdict(const exec_result *r, const exec_class *c, char *buf, size_t len);

#endif
