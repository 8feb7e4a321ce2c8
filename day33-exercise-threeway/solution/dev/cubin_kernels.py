"""cubin_kernels.py: the kernels of one architecture's machine code in a
program built by nvcc, without cuobjdump: the host binary's .nv_fatbin
section (copied out by objcopy) holds one fatbin per object, each with an
ELF per architecture; the entries are read by the grading tool's
entries.py.

    python3 solution/dev/cubin_kernels.py ./threeway-onepass [SM]

prints one kernel name a line (demangled where c++filt exists), then
"N kernels in the sm_SM code of PROGRAM" (SM defaults to 90). Exit 1 when
the program holds no sm_SM image (compressed images are not read).
"""
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "harness", "grader"))
import entries  # noqa: E402


def main():
    prog = sys.argv[1]
    sm = int(sys.argv[2]) if len(sys.argv) > 2 else 90
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "fatbin")
        subprocess.run(["objcopy", "-O", "binary", "--only-section=.nv_fatbin",
                        prog, raw], check=True)
        blob = open(raw, "rb").read()
    names, images, off = set(), 0, 0
    while off + 16 <= len(blob):
        magic, _, hsize, fsize = struct.unpack_from("<IHHQ", blob, off)
        if magic != entries.FATBIN_MAGIC:
            off += 8          # the fatbins are 8-byte aligned in the section
            continue
        for arch, elf in entries.fatbin_elves(blob[off:off + hsize + fsize]) or []:
            if arch == sm:
                images += 1
                names.update(entries.elf_entries(elf))
        off += hsize + fsize
    for name in entries.demangle(sorted(names)):
        print(name)
    print("%d kernels in the sm_%d code of %s (%d images)"
          % (len(names), sm, prog, images))
    return 0 if images else 1


if __name__ == "__main__":
    sys.exit(main())
