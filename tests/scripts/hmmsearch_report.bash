# Comparing hpcalign hmmsearch's text outputs with hmmsearch's (sourced; not a test itself).
#
# The main report (-o) is compared byte for byte but for these lines, which name the program,
# its version, paths or times and so differ by design:
#   "# hmmsearch :: ...", "# HMMER 3.3.2 (Nov 2020)...", "# Copyright ...", "# Freely distributed ..."
#       hmmsearch's banner; ours: "# hpcalign hmmsearch :: ..." and "# HMMER 3.3.2's hmmsearch ..."
#   "# query HMM file:", "# target sequence database:", "# output directed to file:",
#   "# MSA of all hits saved to file:", "# per-seq hits tabular output:",
#   "# per-dom hits tabular output:"                      paths (each run writes its own files)
#   "# number of worker threads:"                         --cpu differs (1 for hmmsearch)
#   "# CPU time:", "# Mc/sec:"                            hmmsearch's timings (we print none)
# and "# Alignment of N hits ... saved to: PATH" is compared without its PATH.
# The -A alignment is compared but for its "#=GF AU" line (the program that wrote it); the
# tables but for hmmsearch's trailing "# Program:" comment block, which we do not write.

report_body() {
  grep -v -E '^# (hmmsearch ::|hpcalign hmmsearch ::|HMMER |Copyright|Freely distributed|query HMM file:|target sequence database:|output directed to file:|MSA of all hits saved to file:|per-seq hits tabular output:|per-dom hits tabular output:|number of worker threads:|CPU time:|Mc/sec:)' "$1" |
    sed 's/^\(# Alignment of [0-9]* hits satisfying inclusion thresholds saved to: \).*/\1FILE/'
}
msa_body() { grep -v '^#=GF AU ' "$1"; }
table_rows() { grep -v '^#' "$1" | wc -l; }
table_body() { sed '/^# Program:/,$d' "$1" | sed '${/^#$/d}'; }  # without hmmsearch's '#' and trailer

# same_report NAME DIR_A DIR_B: the reports (out) and the -A alignments (ali) of two runs.
same_report() {
  local name=$1 a=$2 b=$3
  if [ ! -s "$b/out" ]; then fail "$name: no report"; return; fi
  if cmp -s <(report_body "$a/out") <(report_body "$b/out"); then
    pass "$name: report identical ($(grep -c '^>>' "$a/out") targets, $(grep -c '== domain' "$a/out") alignments)"
  else
    fail "$name: report differs: $(diff <(report_body "$a/out") <(report_body "$b/out") | head -8 | tr '\n' '|')"
  fi
  [ -e "$a/ali" ] || return 0
  if cmp -s <(msa_body "$a/ali") <(msa_body "$b/ali"); then
    pass "$name: -A identical ($(grep -c '^#=GS' "$a/ali") sequences)"
  else
    fail "$name: -A differs: $(diff <(msa_body "$a/ali") <(msa_body "$b/ali") | head -6 | tr '\n' '|')"
  fi
}

# same_tables NAME DIR_A DIR_B: tblout and domtblout (tbl, dom) of two runs identical.
same_tables() {
  local name=$1 a=$2 b=$3 t
  for t in tbl dom; do
    if cmp -s <(table_body "$a/$t") <(table_body "$b/$t"); then
      pass "$name: $t identical ($(table_rows "$a/$t") rows)"
    else
      fail "$name: $t differs: $(diff <(table_body "$a/$t") <(table_body "$b/$t") | head -6 | tr '\n' '|')"
    fi
  done
}

# run_both NAME MODELS DB DIR_THEIRS DIR_OURS [OPTIONS...]: hmmsearch --cpu 1 and hpcalign
# hmmsearch with the same options, each writing out, ali, tbl and dom into its directory;
# returns 1 when hmmsearch fails.
run_both() {
  local name=$1 models=$2 db=$3 theirs=$4 ours=$5; shift 5
  mkdir -p "$ours" "$theirs"
  hmmsearch --cpu 1 "$@" -o "$theirs/out" -A "$theirs/ali" --tblout "$theirs/tbl" --domtblout "$theirs/dom" \
    "$models" "$db" >/dev/null 2>"$theirs/err" || { fail "$name: hmmsearch failed: $(head -c 300 "$theirs/err")"; return 1; }
  expect_ok "$name: hpcalign hmmsearch runs" "$HPCALIGN" hmmsearch --cpu 2 --quiet "$@" -o "$ours/out" \
    -A "$ours/ali" --tblout "$ours/tbl" --domtblout "$ours/dom" "$models" "$db"
}
