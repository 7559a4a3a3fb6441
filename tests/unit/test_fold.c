// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_fold.c - fitting header lines to a width (fold.c): lines that fit
 * kept byte for byte, a long line broken at spaces under its text after
 * "label:", an indented line's rest 4 further in, a word wider than a
 * line (a long URI) cut in the middle with "...", UTF-8 counted as
 * characters, the last line without a newline kept so, a number kept
 * with its unit, the start of a line that fits one row in whole words;
 * an error line's names and libvirt's words escaped (esc.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fold.h"

static void check(const char *in, size_t cols, const char *want)
{
	char *out = vcp_fold(in, cols);

	assert_non_null(out);
	assert_string_equal(out, want);
	free(out);
}

static void test_fits(void **state)
{
	(void)state;
	check("host:   a (b)\n  table row\n", 20, "host:   a (b)\n  table row\n");
	check("", 20, "");
	check("no newline at the end", 40, "no newline at the end");
}

static void test_label(void **state)
{
	(void)state;
	/* 30 columns: the rest under the text after "mode:   " */
	check("mode:   pin (a simulated host with no kernel to tune)\n", 30,
	      "mode:   pin (a simulated host\n"
	      "        with no kernel to\n"
	      "        tune)\n");
	/* a label of two words; not three, nor a colon later in the line */
	check("migration options: LIVE ABORT_ON_ERROR TLS\n", 40,
	      "migration options: LIVE ABORT_ON_ERROR\n"
	      "                   TLS\n");
	check("saving per host: a b c d e f g h\n", 20,
	      "saving per host: a b\n"
	      "c d e f g h\n");
	check("fleet: 2 hosts (vendor: x) and more\n", 20,
	      "fleet: 2 hosts\n"
	      "       (vendor: x)\n"
	      "       and more\n");
}

static void test_indented(void **state)
{
	(void)state;
	check("  h1               unreachable: cannot connect to it now\n", 32,
	      "  h1               unreachable:\n"
	      "      cannot connect to it now\n");
}

static void test_long_word(void **state)
{
	(void)state;
	/* 24 columns, 8 of label: a 31-character word cut to 16 */
	check("host:   vm (qemu+ssh://very-long-host.example/x, driver QEMU)\n",
	      24,
	      "host:   vm\n"
	      "        (qemu+s...ple/x,\n"
	      "        driver QEMU)\n");
}

static void test_utf8(void **state)
{
	(void)state;
	/* 10 characters of 2 bytes each fit 10 columns */
	check("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\n",
	      10, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\n");
}

static void test_capture(void **state)
{
	struct vcp_fold_capture c;
	FILE *real = stdout;
	char *buf = NULL;
	size_t len = 0;

	(void)state;
	stdout = open_memstream(&buf, &len);
	assert_non_null(stdout);
	assert_int_equal(vcp_fold_begin(&c, 30), 0);
	printf("mode:   pin (a simulated host with no kernel to tune)\n");
	vcp_fold_end(&c);
	printf("wide: ");
	/* 0 columns: not captured, printed as it goes */
	assert_int_equal(vcp_fold_begin(&c, 0), 0);
	assert_null(c.saved);
	printf("mode:   pin (a simulated host with no kernel to tune)\n");
	vcp_fold_end(&c);
	fclose(stdout);
	stdout = real;
	assert_string_equal(buf, "mode:   pin (a simulated host\n"
				 "        with no kernel to\n"
				 "        tune)\n"
				 "wide: mode:   pin (a simulated host with no kernel to tune)\n");
	free(buf);
}

/* One line with its words folded under a given start (explain's and
 * the memory lines' wrapping). */
static void test_line(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	vcp_fold_line(f, "  why:      one two three four five", 12, 12, 26);
	vcp_fold_line(f, "  head: one two three four", 8, 4, 0);
	vcp_fold_line(f, "  head: one two three four", 8, 4, 20);
	fclose(f);
	assert_string_equal(buf, "  why:      one two three\n"
				 "            four five\n"
				 "  head: one two three four\n"
				 "  head: one two\n"
				 "    three four\n");
	free(buf);
}

/* Error and log lines: formatted, then folded under the message. */
static void test_printf(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	vcp_fold_printf(f, 30, "vcpack: %s %d\n", "no answer on /run/x.sock;",
			7);
	vcp_fold_printf(f, 0, "vcpack: %s\n", "a line kept whole as it is");
	fclose(f);
	assert_string_equal(buf, "vcpack: no answer on\n"
				 "        /run/x.sock; 7\n"
				 "vcpack: a line kept whole as it is\n");
	free(buf);
}

static int err_of(int code, const char *prog, size_t cols, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = vcp_fold_err(code, prog, cols, fmt, ap);
	va_end(ap);
	return code;
}

/* An error line as stderr gets it: a name with ESC, CR, LF and a C1
 * CSI in it escaped, the line one line; folded on the escaped form. */
static void test_err_escaped(void **state)
{
	char path[] = "/tmp/vcp-test-fold.XXXXXX", buf[512];
	int fd = mkstemp(path), saved = dup(STDERR_FILENO);
	ssize_t n;

	(void)state;
	assert_true(fd >= 0 && saved >= 0);
	fflush(stderr);
	assert_int_equal(dup2(fd, STDERR_FILENO), STDERR_FILENO);
	assert_int_equal(err_of(2, "vcpack", 0, "no domain '%s'",
				"x\x1b[2J\r\nforged: \xc2\x9b"),
			 2);
	assert_int_equal(err_of(1, "vcpack", 24, "cannot read '%s': %s",
				"vm\x1b]0;T\x07", "a\tb"),
			 1);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	unlink(path);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(
		buf, "vcpack: no domain 'x\\e[2J\\r\\nforged: \\xc2\\x9b'\n"
		     "vcpack: cannot read\n"
		     "        'vm\\e]0;T\\x07':\n"
		     "        a\\tb\n");
}

/* a number and its unit ("12 s", "0.0 W", "5 %") on one line; a longer
 * word after a number is no unit */
static void test_unit(void **state)
{
	(void)state;
	check("elapsed 12 s, remaining 3 s\n", 12,
	      "elapsed\n12 s,\nremaining\n3 s\n");
	check("mean 100.0 W; so far\n", 12, "mean\n100.0 W; so\nfar\n");
	check("idle 50 %\n", 8, "idle\n50 %\n");
	check("take 12 apples\n", 10, "take 12\napples\n");
	/* on a line of their own when they fit there */
	check("a 1234567 s\n", 9, "a\n1234567 s\n");
	/* a number as wide as a line: its unit on the next */
	check("a 123456789 s\n", 9, "a\n123456789\ns\n");
}

/* a line redrawn in place: its start that fits one row, whole words */
static void test_prefix(void **state)
{
	const char *l = "  2/5 web1 h2 -> h1: 62% of 1024 MiB, 389 MiB left";

	(void)state;
	assert_int_equal(vcp_fold_prefix(l, 0), strlen(l));
	assert_int_equal(vcp_fold_prefix(l, 200), strlen(l));
	assert_int_equal(vcp_fold_prefix(l, strlen(l)), strlen(l));
	/* "...1024 MiB," ends at 37 */
	assert_int_equal(vcp_fold_prefix(l, 40), 37);
	assert_int_equal(vcp_fold_prefix(l, 37), 37);
	assert_int_equal(vcp_fold_prefix(l, 36), 32);
	assert_int_equal(vcp_fold_prefix("abcdefgh ij", 5), 5);
	assert_int_equal(vcp_fold_prefix("ab cd", 4), 2);
	/* UTF-8: characters, never half of one */
	assert_int_equal(vcp_fold_prefix("\u00e9t\u00e9 hiver", 6), 5);
	assert_int_equal(vcp_fold_prefix("\u00e9\u00e9\u00e9\u00e9", 2), 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fits),
		cmocka_unit_test(test_label),
		cmocka_unit_test(test_indented),
		cmocka_unit_test(test_long_word),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_capture),
		cmocka_unit_test(test_line),
		cmocka_unit_test(test_printf),
		cmocka_unit_test(test_unit),
		cmocka_unit_test(test_prefix),
		cmocka_unit_test(test_err_escaped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
