# bench/kernel/fmt.jq - what report.sh's tables and digest.sh share:
# number formats and the order of scenarios and configs. Used as
#   jq -L bench/kernel 'include "fmt"; ...'

# One decimal; "-" for a missing figure.
def f1: if . == null then "-" else (. * 10 | round / 10 | tostring) end;

# Scenarios in the order the tables list them (unknown ones last).
def ord: {"steady": 0, "bursty": 1, "mixed": 2, "busyspread": 3, "ramp": 4}[.] // 9;

# Configs from the baseline to the scx scheduler (unknown ones last).
def cord: {"stock": 0, "stock-pin": 1, "L0": 2, "L1": 3, "L2": 4, "scx-L1": 5, "scx-L2": 6}[.] // 9;
