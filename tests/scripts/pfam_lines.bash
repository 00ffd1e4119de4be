# with_pfam_lines ACC DESC [GA TC NC]: an hmmbuild model (stdin) with the lines a Pfam release adds:
# ACC and DESC after NAME's block, COM lines, GA/TC/NC cutoffs ("seq dom" bits; Pfam-like defaults),
# BM and SM. Sourced by the real-input test and bench/make_real_shapes.sh.
with_pfam_lines() {
  awk -v acc="$1" -v desc="$2" -v ga="${3:-30.00 20.00}" -v tc="${4:-31.50 21.20}" -v nc="${5:-29.90 19.80}" '
    /^LENG / { print "ACC   " acc; print "DESC  " desc }
    { print }
    /^DATE / { print "COM   [1] hmmbuild --hand HMM.ann SEED.ann"; print "COM   [2] hmmcalibrate --seed 0 HMM.ann" }
    /^CKSUM / { print "GA    " ga ";"; print "TC    " tc ";"; print "NC    " nc ";"
      print "BM    hmmbuild HMM.ann SEED.ann"; print "SM    hmmsearch -Z 61295632 -E 1000 --cpu 4 HMM pfamseq" }'
}
