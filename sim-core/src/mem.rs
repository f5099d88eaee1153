//! Device memory as a program sees it: global allocations, and the generic
//! address windows of shared and local memory.
//!
//! Global memory is a set of allocations at fixed, deterministic addresses. In
//! the default, strict mode ([`MemMode::Strict`]) an access that does not fall
//! wholly inside one is an out-of-bounds error, the way compute-sanitizer
//! reports it. In [`MemMode::Driver`] each allocation is rounded up as
//! `cudaMalloc` rounds it, so an over-read just past a buffer's end reads the
//! zero padding, as on a GPU; such accesses are counted ([`Padding`]) for a
//! warning. The windows' bases are what constant bank 0
//! tells the code (`c[0x0][0x20]`, `c[0x0][0x24]`), learned from ptxas output.

/// Where global allocations start: above 4 GiB, so code that truncates a
/// pointer to 32 bits faults instead of working by accident.
pub const HEAP_BASE: u64 = 0x1_0000_0000;
/// Allocations are aligned (and separated) to this many bytes.
pub const ALLOC_ALIGN: u64 = 256;
/// The generic-address window of shared memory (`c[0x0][0x20]`).
pub const SHARED_WINDOW: u64 = 0x0100_0000;
/// The generic-address window of local memory (`c[0x0][0x24]`).
pub const LOCAL_WINDOW: u64 = 0x0200_0000;
/// Size of each window.
pub const WINDOW_SIZE: u64 = 0x0100_0000;

/// `cudaMalloc`'s rounding of a small allocation, bytes: the driver hands out
/// small allocations from pools in units of 512 bytes (and aligns each to at
/// least 256, as the CUDA programming guide promises).
pub const DRIVER_SMALL_GRANULE: u64 = 512;
/// `cudaMalloc`'s rounding of an allocation of 1 MiB or more: whole 2 MiB
/// pages of the GPU's page table.
pub const DRIVER_LARGE_GRANULE: u64 = 2 << 20;

/// How global allocations are made and checked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum MemMode {
    /// Every byte past a buffer's requested end faults (compute-sanitizer's
    /// view; the default).
    #[default]
    Strict,
    /// Allocations are rounded as `cudaMalloc` rounds them
    /// ([`driver_size`]); accesses inside the rounding read and write its
    /// zero padding and are counted, not refused.
    Driver,
}

/// The bytes `cudaMalloc` really reserves for a request of `len` bytes.
pub fn driver_size(len: u64) -> u64 {
    let g = if len >= 1 << 20 {
        DRIVER_LARGE_GRANULE
    } else {
        DRIVER_SMALL_GRANULE
    };
    len.max(1).div_ceil(g) * g
}

/// Accesses that fell past a buffer's requested end but inside its rounded
/// allocation ([`MemMode::Driver`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Padding {
    /// Lane accesses (each load or store of one thread) that touched padding.
    pub accesses: u64,
    /// The first such access: the buffer, the access's address and how far past
    /// the buffer's end it reached, bytes.
    pub first: Option<(String, u64, u64)>,
}

/// A global allocation.
#[derive(Debug, Clone)]
pub struct Allocation {
    pub base: u64,
    /// The bytes: the requested ones, then (in [`MemMode::Driver`]) the
    /// rounding's zero padding.
    pub data: Vec<u8>,
    /// A name for messages (a launch file's buffer name, a cubin's symbol).
    pub name: String,
    /// The bytes requested (`data` may be longer by the padding).
    pub len: usize,
}

impl Allocation {
    /// The requested bytes, without padding.
    pub fn bytes(&self) -> &[u8] {
        &self.data[..self.len]
    }
}

/// Global memory: allocations sorted by address.
#[derive(Debug, Clone, Default)]
pub struct GlobalMem {
    allocs: Vec<Allocation>,
    next: u64,
    /// The allocation the last access hit: accesses come in runs.
    last: std::cell::Cell<usize>,
    mode: MemMode,
    padding: std::cell::RefCell<Padding>,
}

/// An access that no allocation holds: the message names the nearest one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    pub addr: u64,
    pub size: u32,
    pub nearest: Option<String>,
}

impl GlobalMem {
    pub fn new() -> GlobalMem {
        GlobalMem::with_mode(MemMode::Strict)
    }

    /// Global memory whose allocations are made and checked as `mode` says.
    pub fn with_mode(mode: MemMode) -> GlobalMem {
        GlobalMem {
            allocs: Vec::new(),
            next: HEAP_BASE,
            last: std::cell::Cell::new(0),
            mode,
            padding: Default::default(),
        }
    }

    pub fn mode(&self) -> MemMode {
        self.mode
    }

    /// The accesses that touched an allocation's padding so far.
    pub fn padding(&self) -> Padding {
        self.padding.borrow().clone()
    }

    /// Allocates `data` and returns its device address.
    pub fn alloc(&mut self, name: &str, mut data: Vec<u8>) -> u64 {
        if self.next == 0 {
            self.next = HEAP_BASE;
        }
        let base = self.next;
        let len = data.len();
        if self.mode == MemMode::Driver {
            data.resize(driver_size(len as u64) as usize, 0);
        }
        let span = data.len() as u64;
        self.next = (base + span.max(1) + ALLOC_ALIGN).div_ceil(ALLOC_ALIGN) * ALLOC_ALIGN;
        self.allocs.push(Allocation {
            base,
            data,
            name: name.to_string(),
            len,
        });
        base
    }

    /// Counts an access of allocation `i` at offset `off` that reaches past
    /// the requested bytes.
    #[cold]
    fn note_padding(&self, i: usize, off: usize, size: u32) {
        let a = &self.allocs[i];
        let mut p = self.padding.borrow_mut();
        p.accesses += 1;
        if p.first.is_none() {
            let past = (off + size as usize - a.len) as u64;
            p.first = Some((a.name.clone(), a.base + off as u64, past));
        }
    }

    /// [`Self::find`], counting an access inside the padding.
    #[inline]
    fn locate(&self, addr: u64, size: u32) -> Result<(usize, usize), Fault> {
        let (i, off) = self.find(addr, size)?;
        if off + size as usize > self.allocs[i].len {
            self.note_padding(i, off, size);
        }
        Ok((i, off))
    }

    /// The allocation named `name`.
    pub fn get(&self, name: &str) -> Option<&Allocation> {
        self.allocs.iter().find(|a| a.name == name)
    }

    pub fn allocations(&self) -> &[Allocation] {
        &self.allocs
    }

    #[inline]
    fn find(&self, addr: u64, size: u32) -> Result<(usize, usize), Fault> {
        if let Some(a) = self.allocs.get(self.last.get()) {
            let off = addr.wrapping_sub(a.base);
            if addr >= a.base && off + size as u64 <= a.data.len() as u64 {
                return Ok((self.last.get(), off as usize));
            }
        }
        // Allocations are made in increasing address order.
        let i = self.allocs.partition_point(|a| a.base <= addr);
        if i > 0 {
            self.last.set(i - 1);
        }
        if i > 0 {
            let a = &self.allocs[i - 1];
            let off = addr - a.base;
            if off + size as u64 <= a.data.len() as u64 {
                return Ok((i - 1, off as usize));
            }
        }
        let nearest = self
            .allocs
            .iter()
            .min_by_key(|a| {
                if addr < a.base {
                    a.base - addr
                } else {
                    addr.saturating_sub(a.base + a.data.len() as u64)
                }
            })
            .map(|a| {
                let end = a.base + a.data.len() as u64;
                if addr >= end {
                    format!(
                        "{} bytes after the end of `{}` [{:#x}, {:#x}){}",
                        addr - end,
                        a.name,
                        a.base,
                        end,
                        self.hint(addr - end)
                    )
                } else if addr < a.base {
                    format!(
                        "{} bytes before `{}` [{:#x}, {:#x})",
                        a.base - addr,
                        a.name,
                        a.base,
                        end
                    )
                } else {
                    format!(
                        "overlapping the end of `{}` [{:#x}, {:#x}){}",
                        a.name,
                        a.base,
                        end,
                        self.hint(0)
                    )
                }
            });
        Err(Fault {
            addr,
            size,
            nearest,
        })
    }

    /// How to switch to driver-like memory, for a fault `past` bytes after a
    /// buffer's end in strict mode (nothing past what any rounding covers).
    fn hint(&self, past: u64) -> &'static str {
        if self.mode == MemMode::Strict && past < DRIVER_LARGE_GRANULE {
            " (strict memory; to allocate as cudaMalloc does, where such an over-read \
             reads padding, run with `--memory driver` or set `memory: Driver` in the launch file)"
        } else {
            ""
        }
    }

    /// The `size` bytes at `addr`.
    #[inline]
    pub fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), Fault> {
        let (i, off) = self.locate(addr, out.len() as u32)?;
        out.copy_from_slice(&self.allocs[i].data[off..off + out.len()]);
        Ok(())
    }

    /// Writes `data` at `addr`.
    #[inline]
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), Fault> {
        let (i, off) = self.locate(addr, data.len() as u32)?;
        self.allocs[i].data[off..off + data.len()].copy_from_slice(data);
        Ok(())
    }

    /// The allocation that holds `[addr, addr + size)`: its base and its
    /// requested bytes (not its padding: an access there takes [`Self::slice_mut`],
    /// which counts it).
    #[inline]
    pub fn region_mut(&mut self, addr: u64, size: u32) -> Option<(u64, &mut [u8])> {
        let (i, _) = self.locate(addr, size).ok()?;
        let a = &mut self.allocs[i];
        Some((a.base, &mut a.data[..a.len]))
    }

    /// The bytes of allocation `i` for reading and writing in place.
    pub fn slice_mut(&mut self, addr: u64, size: u32) -> Result<&mut [u8], Fault> {
        let (i, off) = self.locate(addr, size)?;
        Ok(&mut self.allocs[i].data[off..off + size as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accesses_must_fall_inside_an_allocation() {
        let mut g = GlobalMem::new();
        let a = g.alloc("x", vec![0; 16]);
        let b = g.alloc("y", vec![0; 16]);
        assert!(b >= a + 16 + ALLOC_ALIGN - 16);
        g.write(a + 12, &[1, 2, 3, 4]).unwrap();
        let mut buf = [0u8; 4];
        g.read(a + 12, &mut buf).unwrap();
        assert_eq!(buf, [1, 2, 3, 4]);
        let f = g.read(a + 14, &mut buf).unwrap_err();
        assert!(f.nearest.unwrap().contains("`x`"));
        let f = g.read(a + 16, &mut buf).unwrap_err();
        assert!(f.nearest.unwrap().contains("0 bytes after the end of `x`"));
        assert!(g.read(0, &mut buf).is_err());
        assert!(f_hint(&g, a).contains("--memory driver"));
        assert_eq!(g.padding(), Padding::default());
    }

    fn f_hint(g: &GlobalMem, a: u64) -> String {
        g.read(a + 16, &mut [0u8; 4]).unwrap_err().nearest.unwrap()
    }

    #[test]
    fn driver_memory_rounds_as_cuda_malloc_and_counts_padding() {
        assert_eq!(driver_size(1), 512);
        assert_eq!(driver_size(513), 1024);
        assert_eq!(driver_size(3 << 20), 4 << 20);
        let mut g = GlobalMem::with_mode(MemMode::Driver);
        let a = g.alloc("x", vec![7; 100]);
        let b = g.alloc("y", vec![0; 16]);
        assert!(b >= a + 512);
        assert_eq!(g.get("x").unwrap().bytes(), &[7; 100][..]);
        let mut buf = [1u8; 8];
        g.read(a + 96, &mut buf).unwrap();
        assert_eq!(buf, [7, 7, 7, 7, 0, 0, 0, 0]);
        g.read(a + 200, &mut buf).unwrap();
        let p = g.padding();
        assert_eq!(p.accesses, 2);
        assert_eq!(p.first, Some(("x".to_string(), a + 96, 4)));
        // Past the rounding it still faults, without the hint.
        let f = g.read(a + 512, &mut buf).unwrap_err();
        assert!(!f.nearest.unwrap().contains("--memory"));
    }
}
