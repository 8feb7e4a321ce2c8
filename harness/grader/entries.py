"""entries: the kernel entries of a device module, read from the file.

A cubin is a CUDA ELF: its kernels are the function symbols with the
STO_CUDA_ENTRY bit. A fatbin (nvcc -fatbin) holds one such ELF per
machine-code architecture (and PTX, which has no symbol table). compiler.py
uses these to check, before anything runs, that every machine-code image
holds the kernel the driver launches. Standard library only.
"""

import shutil
import struct
import subprocess

STO_CUDA_ENTRY = 0x10           # st_other bit of a kernel entry
STT_FUNC = 2
SHT_SYMTAB = 2
FATBIN_MAGIC = 0xBA55ED50
FATBIN_ELF = 2                  # entry kind: machine code
FATBIN_PTX = 1                  # entry kind: PTX


def elf_entries(elf):
    """Kernel entry names in a CUDA ELF (cubin): the function symbols with
    the STO_CUDA_ENTRY bit, read from the symbol table with struct."""
    if elf[:4] != b"\x7fELF" or elf[4] != 2 or elf[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF")
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", elf, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + k * shentsize)
                for k in range(shnum)]
    names = []
    for sec in sections:
        if sec[1] != SHT_SYMTAB:
            continue
        off, size, entsize = sec[4], sec[5], sec[9] or 24
        strtab = sections[sec[6]]
        for k in range(size // entsize):
            st_name, st_info, st_other = struct.unpack_from(
                "<IBB", elf, off + k * entsize)
            if st_info & 0xF == STT_FUNC and st_other & STO_CUDA_ENTRY:
                start = strtab[4] + st_name
                end = elf.index(b"\0", start)
                names.append(elf[start:end].decode("utf-8", "replace"))
    return sorted(set(names))


def _fatbin_images(blob):
    """(kind, sm, payload) for each image of an nvcc -fatbin file. Layout:
    a 16-byte header (magic, version, header size, size of the images),
    then per image a header (kind, ..., its header size, payload size,
    ..., the sm at byte 28) and its payload."""
    magic, _, hsize, fsize = struct.unpack_from("<IHHQ", blob, 0)
    if magic != FATBIN_MAGIC:
        raise ValueError("not a fatbin")
    out, off, end = [], hsize, min(hsize + fsize, len(blob))
    while off + 32 <= end:
        kind, _, ehsize, psize = struct.unpack_from("<HHIQ", blob, off)
        sm, = struct.unpack_from("<I", blob, off + 28)
        out.append((kind, sm, blob[off + ehsize:off + ehsize + psize]))
        off += ehsize + psize
    return out


def fatbin_elves(blob):
    """(sm, ELF bytes) for each machine-code image of an nvcc -fatbin file,
    or None when an image is compressed (the caller then inspects a cubin
    of its own)."""
    out = []
    for kind, sm, payload in _fatbin_images(blob):
        if kind == FATBIN_ELF:
            if payload[:4] != b"\x7fELF":
                return None
            out.append((sm, payload))
    return out


def fatbin_ptx(blob):
    """The sm of each PTX image of an nvcc -fatbin file (compressed or
    not: only the headers are read)."""
    return [sm for kind, sm, _ in _fatbin_images(blob) if kind == FATBIN_PTX]


def demangle(names):
    """names demangled by c++filt (or cu++filt) when one is installed."""
    tool = shutil.which("cu++filt") or shutil.which("c++filt")
    if not tool or not names:
        return list(names)
    try:
        r = subprocess.run([tool], input="\n".join(names) + "\n",
                           capture_output=True, text=True, timeout=10)
        out = r.stdout.splitlines()
        if r.returncode == 0 and len(out) == len(names):
            return out
    except (OSError, subprocess.SubprocessError):
        pass
    return list(names)
