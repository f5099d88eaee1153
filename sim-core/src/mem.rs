//! Device memory as a program sees it: global allocations, and the generic
//! address windows of shared and local memory.
//!
//! Global memory is a set of allocations at fixed, deterministic addresses; an
//! access that does not fall wholly inside one is an out-of-bounds error, the way
//! compute-sanitizer reports it. The windows' bases are what constant bank 0
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

/// A global allocation.
#[derive(Debug, Clone)]
pub struct Allocation {
    pub base: u64,
    pub data: Vec<u8>,
    /// A name for messages (a launch file's buffer name, a cubin's symbol).
    pub name: String,
}

/// Global memory: allocations sorted by address.
#[derive(Debug, Clone, Default)]
pub struct GlobalMem {
    allocs: Vec<Allocation>,
    next: u64,
    /// The allocation the last access hit: accesses come in runs.
    last: std::cell::Cell<usize>,
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
        GlobalMem {
            allocs: Vec::new(),
            next: HEAP_BASE,
            last: std::cell::Cell::new(0),
        }
    }

    /// Allocates `data` and returns its device address.
    pub fn alloc(&mut self, name: &str, data: Vec<u8>) -> u64 {
        if self.next == 0 {
            self.next = HEAP_BASE;
        }
        let base = self.next;
        let len = data.len() as u64;
        self.next = (base + len.max(1) + ALLOC_ALIGN).div_ceil(ALLOC_ALIGN) * ALLOC_ALIGN;
        self.allocs.push(Allocation {
            base,
            data,
            name: name.to_string(),
        });
        base
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
                        "{} bytes after the end of `{}` [{:#x}, {:#x})",
                        addr - end,
                        a.name,
                        a.base,
                        end
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
                        "overlapping the end of `{}` [{:#x}, {:#x})",
                        a.name, a.base, end
                    )
                }
            });
        Err(Fault {
            addr,
            size,
            nearest,
        })
    }

    /// The `size` bytes at `addr`.
    #[inline]
    pub fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), Fault> {
        let (i, off) = self.find(addr, out.len() as u32)?;
        out.copy_from_slice(&self.allocs[i].data[off..off + out.len()]);
        Ok(())
    }

    /// Writes `data` at `addr`.
    #[inline]
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), Fault> {
        let (i, off) = self.find(addr, data.len() as u32)?;
        self.allocs[i].data[off..off + data.len()].copy_from_slice(data);
        Ok(())
    }

    /// The allocation that holds `[addr, addr + size)`: its base and its bytes.
    #[inline]
    pub fn region_mut(&mut self, addr: u64, size: u32) -> Option<(u64, &mut [u8])> {
        let (i, _) = self.find(addr, size).ok()?;
        let a = &mut self.allocs[i];
        Some((a.base, &mut a.data))
    }

    /// The bytes of allocation `i` for reading and writing in place.
    pub fn slice_mut(&mut self, addr: u64, size: u32) -> Result<&mut [u8], Fault> {
        let (i, off) = self.find(addr, size)?;
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
    }
}
