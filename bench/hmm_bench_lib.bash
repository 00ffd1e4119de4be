# Shared by bench/msv.sh and bench/hmmsearch.sh (sourced): the synthetic database both search
# and splitting a model file into one file per model.
now() { date +%s.%N; }
elapsed() { python3 -c "print(f'{$2 - $1:.3f}')"; }

# synthetic_db BIN RESIDUES PREFIX: PREFIX.fa (hmmsearch reads it) and PREFIX.h5 (hpcalign's
# makedb file) of `makedb --synthetic --seed 1`, kept between runs.
synthetic_db() {
  local bin=$1 residues=$2 db=$3 t0
  [ -s "$db.fa" ] && [ -s "$db.h5" ] && return 0
  t0=$(now)
  "$bin" makedb --synthetic --residues "$residues" --seed 1 -o "$db.fa"
  "$bin" makedb "$db.fa" "$db.h5" >/dev/null
  echo "database built in $(elapsed "$t0" "$(now)") s"
}

# split_models FILE DIR: DIR/0000.hmm, 0001.hmm, ... one model each (hmmsearch refuses a file
# that mixes HMMER3/e and 3/f models).
split_models() {
  rm -rf "$2" && mkdir "$2"
  awk -v dir="$2" '{ print > sprintf("%s/%04d.hmm", dir, n) } /^\/\//{ close(sprintf("%s/%04d.hmm", dir, n)); n++ }' "$1"
}
