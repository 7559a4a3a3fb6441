// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_irq.c - libFuzzer harness for the text readers of irq.c: the
 * counts of /proc/interrupts (vcp_irq_counts_parse) and vcpack's own
 * record of the IRQ affinities it changed (vcp_irq_saved_parse, the
 * file under /run/vcpack that vcp_irq_saved_load reads). Counts that
 * parse have a column per CPU named in the header; a record that parses
 * prints (as vcp_irq_saved_store writes it) to text that parses the same.
 */
#include <errno.h>

#include "fuzz.h"
#include "irq.h"

static void counts(const char *s)
{
	struct vcp_irq_counts c = { 0 };
	int r = vcp_irq_counts_parse(s, &c);

	if (r < 0) {
		FUZZ_CHECK(r == -EBADMSG || r == -ENOMEM);
		FUZZ_CHECK(!c.n_cols && !c.col_cpu);
		return;
	}
	FUZZ_CHECK(c.n_cols > 0 && c.col_cpu && c.all && c.dev);
	for (unsigned int i = 0; i < c.n_cols; i++)
		FUZZ_CHECK(c.col_cpu[i] < VCP_MAX_CPUS);
	vcp_irq_counts_clear(&c);
}

static void saved(const char *s)
{
	static char a[VCP_MAX_CPUS * 6], b[VCP_MAX_CPUS * 6];
	struct vcp_irq_saved *v = NULL, *w = NULL;
	size_t n = 0, m = 0, len = 0;
	char *text = NULL;
	FILE *f;
	int r = vcp_irq_saved_parse(s, &v, &n);

	if (r < 0) {
		FUZZ_CHECK(r == -EBADMSG || r == -ENOMEM);
		return;
	}
	f = open_memstream(&text, &len);
	FUZZ_CHECK(f);
	for (size_t i = 0; i < n; i++) {
		FUZZ_CHECK(vcp_cpuset_format(&v[i].orig, a, sizeof(a)) == 0);
		FUZZ_CHECK(vcp_cpuset_format(&v[i].set, b, sizeof(b)) == 0);
		fprintf(f, "%u %s %s\n", v[i].irq, a, b);
	}
	fclose(f);
	FUZZ_CHECK(vcp_irq_saved_parse(text, &w, &m) == 0 && m == n);
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK(w[i].irq == v[i].irq &&
			   vcp_cpuset_equal(&w[i].orig, &v[i].orig) &&
			   vcp_cpuset_equal(&w[i].set, &v[i].set));
	free(text);
	free(v);
	free(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);

	counts(s);
	saved(s);
	free(s);
	return 0;
}
