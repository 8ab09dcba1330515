/* lora.c - a training row that fine-tunes with LoRA or QLoRA: the training
 * schema has no LoRA columns, so the row's model, source or note says it,
 * and the [train] keys it writes make the step train the adapters alone
 * (valid_put_lora, called by runs.c's valid_row_text). */
#include "valid_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* A column's value as the reader takes it: written loosely, the schema's
 * (valid_loose). */
static const char *get(const cases_csv *c, size_t row, const char *col)
{
	return valid_loose(col, cases_csv_get(c, row, cases_csv_col(c, col)));
}

/* The integer after `key` in `text` (spaces, '=' or ':' between), or 0; a
 * key inside a longer name (a letter, digit or '_' before it: MLA's
 * "kv_lora_rank 512" is no "rank") does not count. */
static long int_after(const char *text, const char *key)
{
	for (const char *p = strstr(text, key); p; p = strstr(p + 1, key)) {
		if (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
			continue;
		const char *q = p + strlen(key);
		while (*q == ' ' || *q == '=' || *q == ':')
			q++;
		if (isdigit((unsigned char)*q))
			return atol(q);
	}
	return 0;
}

/* Whether the lower-case text names LoRA ("LoRA", "QLoRA", "--lora_r",
 * MLPerf's "llama2_70b_lora"), not a part of another word (a letter or digit
 * before it, but QLoRA's q) nor MLA's "q_lora_rank" and "kv_lora_rank" ('_'
 * before it and "_rank" after); *qlora when it is QLoRA. */
static bool lora_word(const char *low, bool *qlora)
{
	for (const char *p = strstr(low, "lora"); p; p = strstr(p + 1, "lora")) {
		bool q = p > low && p[-1] == 'q';
		const char *b = q ? p - 1 : p;
		char before = b > low ? b[-1] : ' ';
		if (isalnum((unsigned char)before) || (before == '_' && !strncmp(p + 4, "_rank", 5)))
			continue;
		*qlora = *qlora || q;
		return true;
	}
	return false;
}

/* A row that fine-tunes with LoRA: the training schema has no LoRA columns,
 * so the word "lora" in its model, source or note says it ("llama2_70b_lora",
 * "Llama 2 70B LoRA"), and [train] lora_rank makes the step train the
 * adapters alone (no weight gradients of the frozen base, the optimizer over
 * the adapters). The rank from the note ("rank 16", "r=16", "lora_r 16"),
 * else the documented default, said:
 *   MLPerf's llama2_70b_lora: rank 16 on the fused qkv and the output
 *   projection with dropout 0.1 ("lora rank is a fixed to 16 in closed
 *   submission", mlcommons/training aa344c7f llama2_70b_lora/scripts/
 *   train.py:40-43, run_llama_70B_scrolls_r16.sh --lora_target_modules
 *   "qkv_proj,o_proj");
 *   otherwise PEFT's LoraConfig: r = 8 on a Llama's q_proj and v_proj,
 *   no dropout (huggingface/peft 5d602fdbf src/peft/tuners/lora/config.py:
 *   613, src/peft/utils/constants.py:85; lora_dropout defaults to 0.0).
 * "qlora" keeps the base in 4-bit NF4 with double quantisation, as the QLoRA
 * paper trains (Dettmers et al. 2023), said. */
void valid_put_lora(sim_buf *b, const cases_csv *c, size_t row, char *assumed, size_t alen)
{
	char all[1536], low[1536];
	snprintf(all, sizeof all, "%s | %s | %s", get(c, row, "model"), get(c, row, "source"),
	         get(c, row, "note"));
	valid_lower(all, low, sizeof low);
	bool qlora = false;
	if (!lora_word(low, &qlora))
		return;
	static const struct {
		long rank;
		const char *targets, *on, *dropout, *whose;
	} def[] = {{8, "q,v", "q and v", "false", "PEFT's default"},
	           {16, "attention", "q, k, v and o", "true",
	            "MLPerf's llama2_70b_lora, fixed in the closed division"}};
	int d = strstr(low, "mlperf") || strstr(low, "llama2_70b_lora");
	static const char *const keys[] = {"lora rank", "lora_rank", "lora_r", "rank", "r="};
	long r = 0;
	for (size_t i = 0; i < sizeof keys / sizeof keys[0] && r <= 0; i++)
		r = int_after(low, keys[i]);
	sim_buf_printf(b, "lora_rank = %ld\nlora_targets = %s\nlora_dropout = %s\n",
	               r > 0 ? r : def[d].rank, def[d].targets, def[d].dropout);
	valid_assume(assumed, alen, "LoRA of rank %ld%s on %s (not published: %s)",
	             r > 0 ? r : def[d].rank, r > 0 ? " (the note's)" : "", def[d].on, def[d].whose);
	if (qlora) {
		sim_buf_printf(b, "base_weights = nf4-dq\n");
		valid_assume(assumed, alen, "QLoRA: the base in NF4 with double quantisation");
	}
}
