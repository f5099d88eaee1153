//! CUDA C++ to an sm_35 cubin through NVRTC 11.8, loaded at run time.
//!
//! NVRTC (`libnvrtc.so.11.2`, from PyPI's `nvidia-cuda-nvrtc-cu11==11.8.89`) is the
//! last NVIDIA compiler that targets sm_35, and needs no host compiler. It lives in
//! `<oracle>/lib`, where `scripts/fetch-oracle.sh` puts it: the same `.oracle/`
//! folder (or `$KEPLERSIM_ORACLE`) as the other tools (see [`crate::tools`]). It is
//! opened with `dlopen` when a compilation is asked for, so nothing in the build
//! links against it and a machine without it only loses `compile`.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::path::{Path, PathBuf};

use libloading::Library;

/// The library's file name inside `<oracle>/lib`.
pub const LIBRARY: &str = "libnvrtc.so.11.2";

/// Errors from compiling with NVRTC.
#[derive(Debug, thiserror::Error)]
pub enum NvrtcError {
    #[error("NVRTC 11.8 is not installed ({0} is missing): run `bash scripts/fetch-oracle.sh`")]
    Missing(PathBuf),
    #[error("cannot load {path}: {source}")]
    Load {
        path: PathBuf,
        #[source]
        source: libloading::Error,
    },
    #[error("{path} has no symbol {symbol}: {source}")]
    Symbol {
        path: PathBuf,
        symbol: &'static str,
        #[source]
        source: libloading::Error,
    },
    #[error("{call} failed: {message}")]
    Call { call: &'static str, message: String },
    #[error("an argument holds a NUL byte: {0:?}")]
    Nul(String),
    #[error("{name}: compilation failed ({message}):\n{log}")]
    Compile {
        name: String,
        message: String,
        log: String,
    },
}

type Prog = *mut c_void;
type CreateProgram = unsafe extern "C" fn(
    *mut Prog,
    *const c_char,
    *const c_char,
    c_int,
    *const *const c_char,
    *const *const c_char,
) -> c_int;
type DestroyProgram = unsafe extern "C" fn(*mut Prog) -> c_int;
type CompileProgram = unsafe extern "C" fn(Prog, c_int, *const *const c_char) -> c_int;
type GetSize = unsafe extern "C" fn(Prog, *mut usize) -> c_int;
type GetBytes = unsafe extern "C" fn(Prog, *mut c_char) -> c_int;
type GetErrorString = unsafe extern "C" fn(c_int) -> *const c_char;

/// A loaded NVRTC library.
pub struct Nvrtc {
    lib: Library,
    path: PathBuf,
}

/// One successful compilation.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// The sm_35 cubin (an ELF file).
    pub cubin: Vec<u8>,
    /// NVRTC's program log (warnings); often empty.
    pub log: String,
}

impl Nvrtc {
    /// Loads `libnvrtc.so.11.2` from `$KEPLERSIM_ORACLE/lib`, else from the
    /// workspace's `.oracle/lib`.
    pub fn locate() -> Result<Nvrtc, NvrtcError> {
        let root = match std::env::var_os("KEPLERSIM_ORACLE") {
            Some(p) => PathBuf::from(p),
            None => crate::tools::workspace_root().join(".oracle"),
        };
        Nvrtc::open(&root.join("lib").join(LIBRARY))
    }

    /// Loads the library at `path`.
    pub fn open(path: &Path) -> Result<Nvrtc, NvrtcError> {
        if !path.is_file() {
            return Err(NvrtcError::Missing(path.to_path_buf()));
        }
        // SAFETY: loading NVRTC runs its initialisers, which have no preconditions;
        // the library is NVIDIA's, fetched by scripts/fetch-oracle.sh.
        let lib = unsafe { Library::new(path) }.map_err(|e| NvrtcError::Load {
            path: path.to_path_buf(),
            source: e,
        })?;
        let n = Nvrtc {
            lib,
            path: path.to_path_buf(),
        };
        // Fail now, not in the middle of a compilation, if a symbol is missing.
        n.sym::<CreateProgram>("nvrtcCreateProgram")?;
        n.sym::<CompileProgram>("nvrtcCompileProgram")?;
        n.sym::<GetSize>("nvrtcGetCUBINSize")?;
        n.sym::<GetBytes>("nvrtcGetCUBIN")?;
        Ok(n)
    }

    /// The path the library was loaded from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// NVRTC's version, `(major, minor)`.
    pub fn version(&self) -> Result<(i32, i32), NvrtcError> {
        type Version = unsafe extern "C" fn(*mut c_int, *mut c_int) -> c_int;
        let f = self.sym::<Version>("nvrtcVersion")?;
        let (mut major, mut minor) = (0, 0);
        // SAFETY: nvrtcVersion writes two ints through valid pointers.
        let r = unsafe { f(&mut major, &mut minor) };
        self.check("nvrtcVersion", r)?;
        Ok((major, minor))
    }

    fn sym<T: Copy>(&self, name: &'static str) -> Result<T, NvrtcError> {
        let mut z = name.as_bytes().to_vec();
        z.push(0);
        // SAFETY: every caller names the symbol with the C signature NVRTC 11.8's
        // nvrtc.h gives it.
        let s = unsafe { self.lib.get::<T>(&z) }.map_err(|e| NvrtcError::Symbol {
            path: self.path.clone(),
            symbol: name,
            source: e,
        })?;
        Ok(*s)
    }

    fn message(&self, r: c_int) -> String {
        let text = self
            .sym::<GetErrorString>("nvrtcGetErrorString")
            .ok()
            // SAFETY: nvrtcGetErrorString returns a static NUL-terminated string
            // (or null for an unknown code, checked below).
            .map(|f| unsafe { f(r) })
            .filter(|p| !p.is_null())
            .map(|p| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned());
        match text {
            Some(t) => format!("{t} (code {r})"),
            None => format!("code {r}"),
        }
    }

    fn check(&self, call: &'static str, r: c_int) -> Result<(), NvrtcError> {
        if r == 0 {
            Ok(())
        } else {
            Err(NvrtcError::Call {
                call,
                message: self.message(r),
            })
        }
    }

    /// Compiles `source` (named `name` in diagnostics) for sm_35: `-arch=sm_35`
    /// followed by `options` (e.g. `-DTILE=16`, `-lineinfo`). A failed compilation
    /// is [`NvrtcError::Compile`] carrying the program log.
    pub fn compile_sm35(
        &self,
        source: &str,
        name: &str,
        options: &[String],
    ) -> Result<Compiled, NvrtcError> {
        let c_src = CString::new(source).map_err(|_| NvrtcError::Nul(name.into()))?;
        let c_name = CString::new(name).map_err(|_| NvrtcError::Nul(name.into()))?;
        let mut opts = vec![CString::new("-arch=sm_35").expect("no NUL")];
        for o in options {
            opts.push(CString::new(o.as_str()).map_err(|_| NvrtcError::Nul(o.clone()))?);
        }
        let opt_ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();

        let create = self.sym::<CreateProgram>("nvrtcCreateProgram")?;
        let destroy = self.sym::<DestroyProgram>("nvrtcDestroyProgram")?;
        let compile = self.sym::<CompileProgram>("nvrtcCompileProgram")?;
        let log_size = self.sym::<GetSize>("nvrtcGetProgramLogSize")?;
        let get_log = self.sym::<GetBytes>("nvrtcGetProgramLog")?;
        let cubin_size = self.sym::<GetSize>("nvrtcGetCUBINSize")?;
        let get_cubin = self.sym::<GetBytes>("nvrtcGetCUBIN")?;

        let mut prog: Prog = std::ptr::null_mut();
        // SAFETY: source and name are NUL-terminated and outlive the call; no headers.
        let r = unsafe {
            create(
                &mut prog,
                c_src.as_ptr(),
                c_name.as_ptr(),
                0,
                std::ptr::null(),
                std::ptr::null(),
            )
        };
        self.check("nvrtcCreateProgram", r)?;
        let guard = ProgGuard { prog, destroy };

        let n_opts = c_int::try_from(opt_ptrs.len()).map_err(|_| NvrtcError::Call {
            call: "nvrtcCompileProgram",
            message: "too many options".into(),
        })?;
        // SAFETY: prog is a live program; opt_ptrs holds n_opts valid C strings.
        let compiled = unsafe { compile(guard.prog, n_opts, opt_ptrs.as_ptr()) };

        let log = {
            let mut n = 0usize;
            // SAFETY: prog is live; the buffer has the size NVRTC reported.
            let r = unsafe { log_size(guard.prog, &mut n) };
            self.check("nvrtcGetProgramLogSize", r)?;
            let mut buf = vec![0u8; n.max(1)];
            let r = unsafe { get_log(guard.prog, buf.as_mut_ptr().cast()) };
            self.check("nvrtcGetProgramLog", r)?;
            c_text(&buf)
        };
        if compiled != 0 {
            return Err(NvrtcError::Compile {
                name: name.into(),
                message: self.message(compiled),
                log,
            });
        }

        let mut n = 0usize;
        // SAFETY: prog is a compiled program; the buffer has the size NVRTC reported.
        let r = unsafe { cubin_size(guard.prog, &mut n) };
        self.check("nvrtcGetCUBINSize", r)?;
        let mut cubin = vec![0u8; n];
        let r = unsafe { get_cubin(guard.prog, cubin.as_mut_ptr().cast()) };
        self.check("nvrtcGetCUBIN", r)?;
        if cubin.is_empty() {
            return Err(NvrtcError::Call {
                call: "nvrtcGetCUBIN",
                message: "no cubin produced (was -arch=sm_35 overridden by an option?)".into(),
            });
        }
        Ok(Compiled { cubin, log })
    }
}

/// Destroys an NVRTC program when dropped, on every path out of a compilation.
struct ProgGuard {
    prog: Prog,
    destroy: DestroyProgram,
}

impl Drop for ProgGuard {
    fn drop(&mut self) {
        // SAFETY: prog came from nvrtcCreateProgram and is destroyed once.
        unsafe {
            (self.destroy)(&mut self.prog);
        }
    }
}

/// A NUL-terminated buffer as text (without the NUL and trailing blanks).
fn c_text(buf: &[u8]) -> String {
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_library_says_how_to_install() {
        let e = Nvrtc::open(Path::new("/nonexistent/libnvrtc.so.11.2"))
            .err()
            .expect("must fail");
        let msg = e.to_string();
        assert!(msg.contains("bash scripts/fetch-oracle.sh"), "{msg}");
        assert!(msg.contains("/nonexistent/libnvrtc.so.11.2"), "{msg}");
    }

    /// NVRTC, or `None` where it is not installed and the test is skipped;
    /// but in CI (`CI=true`), where scripts/test.sh always fetches it, a
    /// missing library fails the test.
    fn nvrtc() -> Option<Nvrtc> {
        match Nvrtc::locate() {
            Ok(n) => Some(n),
            Err(e @ NvrtcError::Missing(_)) if std::env::var("CI").is_ok_and(|v| v == "true") => {
                panic!("CI=true, and NVRTC is not installed: {e}")
            }
            Err(NvrtcError::Missing(p)) => {
                eprintln!("skipped: {} missing", p.display());
                None
            }
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn compiles_a_kernel_with_a_define() {
        let Some(n) = nvrtc() else { return };
        assert_eq!(n.version().unwrap(), (11, 8));
        let src = "extern \"C\" __global__ void k(float *p) { p[threadIdx.x] = SCALE; }";
        let c = n
            .compile_sm35(src, "k.cu", &["-DSCALE=2.0f".into()])
            .unwrap();
        assert_eq!(&c.cubin[..4], b"\x7fELF");
        let cubin = sim_isa::cubin::Cubin::parse(&c.cubin).unwrap();
        assert!(cubin.kernel("k").is_some());
    }

    #[test]
    fn a_compile_error_carries_the_log() {
        let Some(n) = nvrtc() else { return };
        let e = n
            .compile_sm35("__global__ void k() { undeclared = 1; }", "bad.cu", &[])
            .unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("bad.cu"), "{msg}");
        assert!(msg.contains("undeclared"), "{msg}");
    }
}
