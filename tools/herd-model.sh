#!/bin/sh
# tools/herd-model.sh -- the LKMM files herd7 reads for tools/litmus-herd.sh,
# from a herdtools7 clone, all of one tag (default 7.58): the model
# pagerace's lkmm follows (src/memory/lkmm.c).
#
#   tools/herd-model.sh HERDTOOLS7_GIT_DIR OUTDIR
#
# At 7.58, catalogue/linux has the .cat and .cfg; the .bell, .def and
# lock.cat of the same model are herd-www/cat_includes'.  (A build that
# takes the newer bell and def of herdtools7's later catalogue runs a
# mixed model: herd7 flags this-model-requires-variant-higher-than-lkmmv1.)
# Then:  HERD7=.../herd7 HERD_MODEL=OUTDIR tools/litmus-herd.sh
set -eu
src=$1 out=$2 tag=${HERD_TAG:-7.58}
mkdir -p "$out"
git -C "$src" show "$tag:catalogue/linux/cats/linux-kernel.cat" >"$out/linux-kernel.cat"
git -C "$src" show "$tag:catalogue/linux/cfgs/linux-kernel.cfg" >"$out/linux-kernel.cfg"
for f in linux-kernel.bell linux-kernel.def lock.cat; do
	git -C "$src" show "$tag:herd-www/cat_includes/$f" >"$out/$f"
done
echo "herd-model: $out ($tag)"
