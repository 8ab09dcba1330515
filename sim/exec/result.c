/* result.c - names of the result categories (the JSON keys of a breakdown). */
#include "exec.h"

const char *exec_cat_name(exec_cat c)
{
	static const char *const names[EXEC_CAT_COUNT] = {
		"compute", "optimizer", "tp", "cp", "ep", "dp", "pp", "bubble", "offload", "other"};
	return (unsigned)c < EXEC_CAT_COUNT ? names[c] : "?";
}
