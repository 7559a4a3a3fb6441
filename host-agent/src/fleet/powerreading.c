// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * powerreading.c - parse what a fleet host's power_command printed: a
 * bare number of watts, ipmitool's `dcmi power reading` (a BMC: the
 * whole host at the wall, also while it sleeps), or `vcpack metrics`
 * text (the host's own RAPL counters: its packages and DRAM only).
 * Strict: anything else is refused, quoting the first bad line, rather
 * than guessed at. Pure.
 *
 *   212
 *   Instantaneous power reading:                   212 Watts
 *   vcpack_host_power_watts 141.5
 *   vcpack_power_watts{package="0",zone="package"} 60.25
 */
#include "powerreading.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"

#define DCMI_LABEL "Instantaneous power reading:"
#define HOST_METRIC "vcpack_host_power_watts"
#define ZONE_METRIC "vcpack_power_watts"

const char *vcp_reading_format_name(enum vcp_reading_format f)
{
	switch (f) {
	case VCP_READING_DCMI:
		return "ipmitool dcmi";
	case VCP_READING_PROM_HOST:
		return HOST_METRIC;
	case VCP_READING_PROM_ZONES:
		return ZONE_METRIC " package+dram";
	default:
		return "bare number";
	}
}

/* A line of the text: [s, s + n), its number from 1. */
struct line {
	const char *s;
	size_t n;
	unsigned int no;
};

/* The next line after @l (l->s NULL: the first); false at the end. */
static bool next_line(const char *text, struct line *l)
{
	const char *p = l->s ? l->s + l->n : text;

	if (l->s) {
		if (!*p)
			return false;
		p++; /* the '\n' */
	}
	if (!*p && l->s)
		return false;
	l->s = p;
	l->n = strcspn(p, "\n");
	l->no++;
	return *p || l->no == 1;
}

/* @l without the white space around it. */
static struct line trimmed(struct line l)
{
	while (l.n && isspace((unsigned char)*l.s)) {
		l.s++;
		l.n--;
	}
	while (l.n && isspace((unsigned char)l.s[l.n - 1]))
		l.n--;
	return l;
}

/* The first non-blank line from @l on (@l itself counts); false if
 * none. */
static bool non_blank(const char *text, struct line *l)
{
	do {
		if (trimmed(*l).n)
			return true;
	} while (next_line(text, l));
	return false;
}

/* "line N: 'TEXT'" with TEXT cut to 60 characters, bytes that are not
 * printable ASCII shown as '?'. */
static int bad(char **err, const struct line *l, const char *why)
{
	struct line t = trimmed(*l);
	char q[64];
	size_t k;

	for (k = 0; k < t.n && k < 60; k++)
		q[k] = isprint((unsigned char)t.s[k]) ? t.s[k] : '?';
	q[k] = '\0';
	return vcp_err(err, -EINVAL, "line %u: '%s%s': %s", l->no, q,
		       t.n > 60 ? "..." : "", why);
}

static bool numeric(const char *s, size_t n)
{
	return n && strspn(s, "0123456789.eE+-") >= n;
}

/* A number of watts, the whole of [s, s + n): NULL, or why not. */
static const char *watts_of(const char *s, size_t n, double *ret)
{
	char buf[64], *end;
	double v;

	if (!numeric(s, n))
		return "not a number of watts";
	if (n >= sizeof(buf))
		return "a number too long";
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	v = strtod(buf, &end);
	if (end != buf + n)
		return "not a number of watts";
	if (errno == ERANGE || !isfinite(v) || v > VCP_READING_MAX_WATTS)
		return "watts out of range (0 to 100000)";
	if (v < 0)
		return "negative watts";
	*ret = v;
	return NULL;
}

/* ---- ipmitool dcmi power reading ---- */

/* "Instantaneous power reading:   212 Watts" */
static int dcmi(const struct line *l, struct vcp_reading *ret, char **err)
{
	struct line t = trimmed(*l);
	const char *p = t.s + strlen(DCMI_LABEL), *end = t.s + t.n;
	const char *num, *why;
	double w;

	while (p < end && isspace((unsigned char)*p))
		p++;
	num = p;
	while (p < end && !isspace((unsigned char)*p))
		p++;
	why = watts_of(num, (size_t)(p - num), &w);
	if (why)
		return bad(err, l, why);
	while (p < end && isspace((unsigned char)*p))
		p++;
	if ((size_t)(end - p) != 5 || strncmp(p, "Watts", 5))
		return bad(err, l, "not 'N Watts'");
	*ret = (struct vcp_reading){ w, VCP_READING_DCMI };
	return 0;
}

/* ---- Prometheus text ---- */

struct sample {
	struct line name;
	char zone[16]; /* the zone label's value, cut; "" if none */
	bool labels;
	struct line value;
};

static size_t name_len(const char *s, const char *end, bool colon)
{
	size_t k = 0;

	while (s + k < end &&
	       (isalpha((unsigned char)s[k]) || s[k] == '_' ||
		(colon && s[k] == ':') || (k && isdigit((unsigned char)s[k]))))
		k++;
	return k;
}

/* A label value from the '"' at *p; *p after its closing '"'. */
static const char *label_value(const char **p, const char *end, char *out,
			       size_t size)
{
	size_t k = 0;

	for ((*p)++; *p < end && **p != '"'; (*p)++) {
		char c = **p;

		if (c == '\\') {
			if (++*p >= end)
				break;
			c = **p == 'n' ? '\n' : **p;
		}
		if (out && k + 1 < size)
			out[k++] = c;
	}
	if (out)
		out[k] = '\0';
	if (*p >= end)
		return "a label value without its closing '\"'";
	(*p)++;
	return NULL;
}

/* {name="value",...}: from the '{' at *p to after the '}'. */
static const char *labels(const char **p, const char *end, struct sample *s)
{
	const char *why;

	s->labels = true;
	for ((*p)++;;) {
		bool zone;
		size_t k;

		while (*p < end && (**p == ' ' || **p == '\t'))
			(*p)++;
		if (*p < end && **p == '}')
			break;
		k = name_len(*p, end, false);
		if (!k || *p + k >= end || (*p)[k] != '=' ||
		    *p + k + 1 >= end || (*p)[k + 1] != '"')
			return "not a sample (a label is not name=\"value\")";
		zone = k == 4 && !strncmp(*p, "zone", 4);
		*p += k + 1;
		why = label_value(p, end, zone ? s->zone : NULL,
				  sizeof(s->zone));
		if (why)
			return why;
		while (*p < end && (**p == ' ' || **p == '\t'))
			(*p)++;
		if (*p < end && **p == ',')
			(*p)++;
		else if (*p >= end || **p != '}')
			return "not a sample (labels not closed by '}')";
	}
	(*p)++;
	return NULL;
}

/* Is [s, s + n) a Prometheus value (a float, NaN, +Inf, -Inf)? */
static bool prom_value(const char *s, size_t n)
{
	char buf[64], *end;

	if (!n || n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	strtod(buf, &end);
	return end == buf + n;
}

/* name{labels} value [timestamp] */
static const char *sample_of(const struct line *l, struct sample *s)
{
	struct line t = trimmed(*l);
	const char *p = t.s, *end = t.s + t.n, *why, *ts;
	size_t k = name_len(p, end, true);

	memset(s, 0, sizeof(*s));
	if (!k)
		return "not a sample, comment or blank line";
	s->name = (struct line){ p, k, l->no };
	p += k;
	if (p < end && *p == '{' && (why = labels(&p, end, s)))
		return why;
	if (p >= end || (*p != ' ' && *p != '\t'))
		return "not a sample (no value after the name)";
	while (p < end && isspace((unsigned char)*p))
		p++;
	s->value.s = p;
	while (p < end && !isspace((unsigned char)*p))
		p++;
	s->value.n = (size_t)(p - s->value.s);
	if (!prom_value(s->value.s, s->value.n))
		return "not a sample (its value is not a number)";
	while (p < end && isspace((unsigned char)*p))
		p++;
	ts = p;
	if (p < end && *p == '-')
		p++;
	while (p < end && isdigit((unsigned char)*p))
		p++;
	if (p != end || (ts < end && p == ts + (*ts == '-')))
		return "not a sample (more after its value)";
	return NULL;
}

static bool is(const struct line *name, const char *metric)
{
	return name->n == strlen(metric) && !strncmp(name->s, metric, name->n);
}

struct prom_sum {
	bool host, zones;
	double host_w, zones_w;
};

/* One line of the text into @sum. */
static int prom_line(const struct line *l, struct prom_sum *sum, char **err)
{
	struct line t = trimmed(*l);
	struct sample s;
	const char *why;
	double w;

	if (!t.n || *t.s == '#')
		return 0;
	why = sample_of(l, &s);
	if (why)
		return bad(err, l, why);
	if (is(&s.name, HOST_METRIC) && !s.labels) {
		why = watts_of(s.value.s, s.value.n, &w);
		if (!why && !sum->host)
			sum->host_w = w;
		sum->host = true;
	} else if (is(&s.name, ZONE_METRIC) &&
		   (!strcmp(s.zone, "package") || !strcmp(s.zone, "dram"))) {
		why = watts_of(s.value.s, s.value.n, &w);
		sum->zones_w += why ? 0 : w;
		sum->zones = true;
	}
	return why ? bad(err, l, why) : 0;
}

static int prom(const char *text, struct vcp_reading *ret, char **err)
{
	struct prom_sum sum = { 0 };
	struct line l = { 0 };
	int r;

	while (next_line(text, &l))
		if ((r = prom_line(&l, &sum, err)) < 0)
			return r;
	if (sum.host)
		*ret = (struct vcp_reading){ sum.host_w,
					     VCP_READING_PROM_HOST };
	else if (sum.zones && sum.zones_w <= VCP_READING_MAX_WATTS)
		*ret = (struct vcp_reading){ sum.zones_w,
					     VCP_READING_PROM_ZONES };
	else if (sum.zones)
		return vcp_err(
			err, -EINVAL,
			"the package and dram zones sum to %.0f W, out of range (0 to 100000)",
			sum.zones_w);
	else
		return vcp_err(
			err, -EINVAL,
			"metrics text without " HOST_METRIC " or " ZONE_METRIC
			" of zone package or dram (the host's power counters were not readable?)");
	return 0;
}

/* ---- which format ---- */

static bool starts(const struct line *l, const char *prefix)
{
	struct line t = trimmed(*l);

	return t.n >= strlen(prefix) && !strncmp(t.s, prefix, strlen(prefix));
}

/* Prometheus text: a HELP or TYPE comment, or a sample of vcpack's. */
static bool looks_prom(const char *text)
{
	struct line l = { 0 };

	while (next_line(text, &l))
		if (starts(&l, "# HELP ") || starts(&l, "# TYPE ") ||
		    starts(&l, "vcpack_"))
			return true;
	return false;
}

/* Neither format: the first line that is not a lone number. */
static int unknown(const char *text, struct line first, char **err)
{
	struct line t = trimmed(first), l = first;
	const char *why =
		"not a number of watts, ipmitool's dcmi power reading or vcpack metrics text";

	if (numeric(t.s, t.n) && next_line(text, &l) && non_blank(text, &l))
		return bad(err, &l, "more than one number of watts");
	return bad(err, &first, why);
}

int vcp_reading_parse(const char *text, struct vcp_reading *ret, char **ret_err)
{
	struct line first = { 0 }, l;
	struct vcp_reading rd;
	const char *why;

	if (!text || !next_line(text, &first) || !non_blank(text, &first))
		return vcp_err(ret_err, -EINVAL, "no output");
	l = first;
	if (!next_line(text, &l) || !non_blank(text, &l)) {
		struct line t = trimmed(first);

		if (numeric(t.s, t.n)) {
			why = watts_of(t.s, t.n, &rd.watts);
			if (why)
				return bad(ret_err, &first, why);
			rd.format = VCP_READING_NUMBER;
			*ret = rd;
			return 0;
		}
	}
	for (l = (struct line){ 0 }; next_line(text, &l);)
		if (starts(&l, DCMI_LABEL))
			return dcmi(&l, ret, ret_err);
	if (looks_prom(text))
		return prom(text, ret, ret_err);
	return unknown(text, first, ret_err);
}
