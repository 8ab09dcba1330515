/* fuzz_csv.c - libFuzzer target over the CSV case reader (sim/cases).
 *
 * Each input is parsed by cases_csv_parse; if it parses, every cell is read,
 * and the typed accessors run over a few columns of the shipped schemas
 * (calibration.csv, microbench.csv) plus the first columns of the header,
 * whatever they are called; then the numbers written loosely are read
 * (valid_loose_numbers) and said (valid_loose_assume).
 *
 * Built with -fsanitize=fuzzer,address,undefined under clang (option `fuzz`);
 * tests/fuzz/replay.c replays the corpus as an ordinary test.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cases/cases.h"
#include "valid/valid_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const fuzz_cols[] = {"id", "layers", "gpus", "tp", "measured_iter_s",
					"time_us", "m", "bytes", "nope", "zero", "vpp",
					"measured_peak_gib", "nic_gbps", "seq_len", NULL};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sim_diag *diag = sim_diag_new();
	if (!diag)
		return 0;
	cases_csv *c = NULL;
	if (cases_csv_parse((const char *)data, size, "<fuzz>", &c, diag) == SIM_OK && c) {
		size_t rows = cases_csv_rows(c);
		(void)cases_csv_path(c);
		size_t sum = 0;
		/* The column count is not exposed; cases_csv_get gives "" past the
		 * last column, so probing every possible index reads every cell
		 * (and checks the out-of-range path). */
		for (size_t r = 0; r < rows; r++) {
			(void)cases_csv_line(c, r);
			for (int col = -1; col <= CASES_MAX_COLS; col++)
				sum += strlen(cases_csv_get(c, r, col));
		}
		(void)cases_csv_get(c, rows, 0);
		(void)sum;
		(void)cases_csv_require(c, fuzz_cols, diag);
		for (size_t i = 0; fuzz_cols[i]; i++) {
			(void)cases_csv_col(c, fuzz_cols[i]);
			for (size_t r = 0; r < rows && r < 64; r++) {
				long l;
				double d;
				(void)cases_get_int(c, r, fuzz_cols[i], -1, &l, diag);
				(void)cases_get_real(c, r, fuzz_cols[i], -1.0, &d, diag);
			}
		}
		/* the numbers written loosely (valid/numbers.c): rewritten in
		 * place, each field's text as written kept, and said */
		(void)cases_csv_sep(c);
		if (valid_loose_numbers(c) == SIM_OK)
			for (size_t r = 0; r < rows && r < 64; r++) {
				char said[1024] = "";
				valid_loose_assume(c, r, said, sizeof said);
				(void)valid_oom_marked(c, r, "measured_iter_s");
				for (int col = 0; col < 8; col++)
					sum += strlen(cases_csv_written(c, r, col));
			}
		for (size_t i = 0; i < sim_diag_count(diag); i++)
			(void)sim_diag_text(diag, i);
		cases_csv_free(c);
	}
	sim_diag_free(diag);
	return 0;
}
