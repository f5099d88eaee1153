/* run_kit.c: runs a keplersim kit on a real Kepler card.
 *
 * `keplersim bench micro --kit DIR` (or `bench sgemm --kit DIR`) writes this
 * file into DIR beside kit.txt (what to launch), cubins/ (the kernels, sm_35)
 * and inputs/ (the buffers' starting contents). On a Linux machine with
 * an sm_35 or sm_37 card and NVIDIA's driver (no CUDA toolkit is needed: the
 * driver's libcuda.so.1 is opened at run time):
 *
 *     cd DIR && cc -std=c99 -O2 -o run_kit run_kit.c -ldl && ./run_kit
 *
 * It launches every kernel of kit.txt twice (the first warms the caches and
 * loads the code; the second is kept), setting every buffer as the kit says
 * before each launch, and writes results/: NNNN.out (the kernel's `out`
 * buffer after the second launch), times.txt (each second launch's
 * milliseconds, by CUDA events) and device.txt (the card). Then `keplersim
 * bench micro --card DIR` (or `bench sgemm --card DIR`) derives every figure
 * from them as it does from the model's runs and prints the card beside the
 * model.
 *
 * Exit status: 0 done, 1 a bad kit or a failed CUDA call (the message says
 * which run and call), 2 no usable driver or card. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUmodule;
typedef void *CUfunction;
typedef void *CUevent;
typedef void *CUstream;
typedef unsigned long long CUdeviceptr;

/* The driver API's values this program uses (cuda.h, stable since CUDA 4). */
enum {
    CACHE_PREFER_SHARED = 1,  /* 48 KB shared, 16 KB L1 */
    SHARED_FOUR_BYTE_BANKS = 1,
    SHARED_EIGHT_BYTE_BANKS = 2,
    ATTR_CLOCK_RATE = 13,     /* kHz */
    ATTR_SM_COUNT = 16,
    ATTR_CC_MAJOR = 75,
    ATTR_CC_MINOR = 76,
};
#define LAUNCH_PARAM_END ((void *)0x00)
#define LAUNCH_PARAM_BUFFER_POINTER ((void *)0x01)
#define LAUNCH_PARAM_BUFFER_SIZE ((void *)0x02)

static struct {
    CUresult (*Init)(unsigned);
    CUresult (*DeviceGet)(CUdevice *, int);
    CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
    CUresult (*DeviceGetName)(char *, int, CUdevice);
    CUresult (*CtxCreate)(CUcontext *, unsigned, CUdevice);
    CUresult (*CtxSetCacheConfig)(int);
    CUresult (*CtxSetSharedMemConfig)(int);
    CUresult (*ModuleLoadData)(CUmodule *, const void *);
    CUresult (*ModuleUnload)(CUmodule);
    CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*MemAlloc)(CUdeviceptr *, size_t);
    CUresult (*MemFree)(CUdeviceptr);
    CUresult (*MemsetD8)(CUdeviceptr, unsigned char, size_t);
    CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
    CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
    CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, CUstream, void **, void **);
    CUresult (*CtxSynchronize)(void);
    CUresult (*EventCreate)(CUevent *, unsigned);
    CUresult (*EventRecord)(CUevent, CUstream);
    CUresult (*EventSynchronize)(CUevent);
    CUresult (*EventElapsedTime)(float *, CUevent, CUevent);
    CUresult (*GetErrorString)(CUresult, const char **);
} cu;

static void die(int status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("run_kit: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(status);
}

static void *sym(void *lib, const char *name) {
    void *p = dlsym(lib, name);
    if (!p)
        die(2, "libcuda.so.1 has no %s: the driver is too old", name);
    return p;
}

static void load_driver(void) {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib)
        die(2, "no CUDA driver (libcuda.so.1): %s", dlerror());
#define SYM(field, name) *(void **)&cu.field = sym(lib, name)
    SYM(Init, "cuInit");
    SYM(DeviceGet, "cuDeviceGet");
    SYM(DeviceGetAttribute, "cuDeviceGetAttribute");
    SYM(DeviceGetName, "cuDeviceGetName");
    SYM(CtxCreate, "cuCtxCreate_v2");
    SYM(CtxSetCacheConfig, "cuCtxSetCacheConfig");
    SYM(CtxSetSharedMemConfig, "cuCtxSetSharedMemConfig");
    SYM(ModuleLoadData, "cuModuleLoadData");
    SYM(ModuleUnload, "cuModuleUnload");
    SYM(ModuleGetFunction, "cuModuleGetFunction");
    SYM(MemAlloc, "cuMemAlloc_v2");
    SYM(MemFree, "cuMemFree_v2");
    SYM(MemsetD8, "cuMemsetD8_v2");
    SYM(MemcpyHtoD, "cuMemcpyHtoD_v2");
    SYM(MemcpyDtoH, "cuMemcpyDtoH_v2");
    SYM(LaunchKernel, "cuLaunchKernel");
    SYM(CtxSynchronize, "cuCtxSynchronize");
    SYM(EventCreate, "cuEventCreate");
    SYM(EventRecord, "cuEventRecord");
    SYM(EventSynchronize, "cuEventSynchronize");
    SYM(EventElapsedTime, "cuEventElapsedTime");
    SYM(GetErrorString, "cuGetErrorString");
#undef SYM
}

/* The run being worked on, for messages. */
static int current = -1;

static void check(CUresult r, const char *call) {
    const char *msg = "unknown error";
    if (r == 0)
        return;
    if (cu.GetErrorString)
        cu.GetErrorString(r, &msg);
    if (current >= 0)
        die(1, "run %04d: %s failed: %s (%d)", current, call, msg, r);
    die(1, "%s failed: %s (%d)", call, msg, r);
}

static void *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    char *data;
    long n;
    if (!f)
        die(1, "%s: %s", path, strerror(errno));
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
        die(1, "%s: cannot find its size", path);
    data = malloc((size_t)n + 1);
    if (!data || fread(data, 1, (size_t)n, f) != (size_t)n)
        die(1, "%s: cannot read it", path);
    fclose(f);
    *len = (size_t)n;
    return data;
}

static void write_file(const char *path, const void *data, size_t len) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0)
        die(1, "%s: cannot write it: %s", path, strerror(errno));
}

/* Reads the next token of kit.txt, which must be `want` when not NULL. */
static const char *token(FILE *f, const char *want, int line_run) {
    static char buf[512];
    if (fscanf(f, "%511s", buf) != 1)
        die(1, "kit.txt: ends early (run %d)", line_run);
    if (want && strcmp(buf, want) != 0)
        die(1, "kit.txt: expected `%s`, found `%s` (run %d)", want, buf, line_run);
    return buf;
}

static unsigned long long number(FILE *f, int line_run) {
    const char *t = token(f, NULL, line_run);
    char *end;
    unsigned long long v;
    errno = 0;
    v = strtoull(t, &end, 10);
    if (errno || *end)
        die(1, "kit.txt: `%s` is not a number (run %d)", t, line_run);
    return v;
}

int main(void) {
    FILE *kit, *times, *dev;
    CUdevice device;
    CUcontext ctx;
    CUevent start, stop;
    char name[256];
    int major, minor, clock_khz, sms, runs, bank_bytes, i;
    char suite[64];

    kit = fopen("kit.txt", "r");
    if (!kit)
        die(1, "kit.txt: %s (run this in the directory `keplersim bench ... --kit` wrote)",
            strerror(errno));
    token(kit, "keplersim-kit", -1);
    if (number(kit, -1) != 2)
        die(1, "kit.txt: a kit of another version; make it again with this keplersim");
    token(kit, "suite", -1);
    snprintf(suite, sizeof suite, "%s", token(kit, NULL, -1));
    token(kit, "fast", -1);
    (void)number(kit, -1);
    token(kit, "shared_bank_bytes", -1);
    bank_bytes = (int)number(kit, -1);
    if (bank_bytes != 4 && bank_bytes != 8)
        die(1, "kit.txt: shared banks of %d bytes (4 or 8)", bank_bytes);
    token(kit, "runs", -1);
    runs = (int)number(kit, -1);

    load_driver();
    check(cu.Init(0), "cuInit");
    check(cu.DeviceGet(&device, 0), "cuDeviceGet");
    check(cu.DeviceGetName(name, (int)sizeof name, device), "cuDeviceGetName");
    check(cu.DeviceGetAttribute(&major, ATTR_CC_MAJOR, device), "cuDeviceGetAttribute");
    check(cu.DeviceGetAttribute(&minor, ATTR_CC_MINOR, device), "cuDeviceGetAttribute");
    check(cu.DeviceGetAttribute(&clock_khz, ATTR_CLOCK_RATE, device), "cuDeviceGetAttribute");
    check(cu.DeviceGetAttribute(&sms, ATTR_SM_COUNT, device), "cuDeviceGetAttribute");
    if (major != 3 || minor < 5)
        die(2, "device 0 (%s) is compute capability %d.%d; the kit's sm_35 code runs on 3.5 "
               "and 3.7 only", name, major, minor);
    check(cu.CtxCreate(&ctx, 0, device), "cuCtxCreate");
    /* As the model: 48 KB of shared memory, banks of the kit's width. */
    check(cu.CtxSetCacheConfig(CACHE_PREFER_SHARED), "cuCtxSetCacheConfig");
    check(cu.CtxSetSharedMemConfig(bank_bytes == 8 ? SHARED_EIGHT_BYTE_BANKS
                                                   : SHARED_FOUR_BYTE_BANKS),
          "cuCtxSetSharedMemConfig");
    check(cu.EventCreate(&start, 0), "cuEventCreate");
    check(cu.EventCreate(&stop, 0), "cuEventCreate");

    if (mkdir("results", 0777) != 0 && errno != EEXIST)
        die(1, "results: %s", strerror(errno));
    dev = fopen("results/device.txt", "w");
    if (!dev)
        die(1, "results/device.txt: %s", strerror(errno));
    fprintf(dev, "name %s\ncc %d %d\nclock_khz %d\nsms %d\nshared_bank_bytes %d\n", name,
            major, minor, clock_khz, sms, bank_bytes);
    fclose(dev);
    times = fopen("results/times.txt", "w");
    if (!times)
        die(1, "results/times.txt: %s", strerror(errno));
    fprintf(stderr, "run_kit: %d kernels on %s (sm_%d%d, %d SMs, %.0f MHz)\n", runs, name,
            major, minor, sms, clock_khz / 1000.0);

    for (i = 0; i < runs; i++) {
        unsigned grid[3], block[3];
        size_t param_size, cubin_len;
        int nbuf, nparam, b, p, launch;
        CUdeviceptr ptr[16];
        unsigned long long bytes[16];
        int chase[16];
        void *file[16]; /* a buffer's starting contents, when a file gives them */
        unsigned char params[4096];
        char kernel[512], path[512], out_path[64];
        void *cubin, *out;
        CUmodule module;
        CUfunction fn;
        float ms = 0;

        token(kit, "run", i);
        if ((int)number(kit, i) != i)
            die(1, "kit.txt: runs out of order at %d", i);
        current = i;
        (void)token(kit, NULL, i); /* the template's file */
        snprintf(kernel, sizeof kernel, "%s", token(kit, NULL, i));
        snprintf(path, sizeof path, "%s", token(kit, NULL, i));
        for (b = 0; b < 3; b++)
            grid[b] = (unsigned)number(kit, i);
        for (b = 0; b < 3; b++)
            block[b] = (unsigned)number(kit, i);
        param_size = (size_t)number(kit, i);
        nbuf = (int)number(kit, i);
        nparam = (int)number(kit, i);
        if (param_size > sizeof params || nbuf < 1 || nbuf > 16)
            die(1, "kit.txt: run %d: %zu parameter bytes and %d buffers are out of range", i,
                param_size, nbuf);
        memset(params, 0, sizeof params);
        for (b = 0; b < nbuf; b++) {
            const char *init;
            token(kit, "buffer", i);
            bytes[b] = number(kit, i);
            init = token(kit, NULL, i);
            chase[b] = strcmp(init, "chase") == 0;
            file[b] = NULL;
            if (strcmp(init, "file") == 0) {
                size_t len;
                const char *name = token(kit, NULL, i);
                if (strncmp(name, "inputs/", 7) != 0 || strstr(name, ".."))
                    die(1, "kit.txt: run %d: buffer file `%s` is not one of inputs/", i, name);
                file[b] = read_file(name, &len);
                if ((unsigned long long)len != bytes[b])
                    die(1, "%s: %zu bytes where run %d's buffer %d has %llu", name, len, i, b,
                        bytes[b]);
            } else if (!chase[b] && strcmp(init, "zero") != 0) {
                die(1, "kit.txt: run %d: buffer init `%s`", i, init);
            }
            if (bytes[b] == 0 || (chase[b] && bytes[b] < 4))
                die(1, "kit.txt: run %d: buffer %d of %llu bytes", i, b, bytes[b]);
            check(cu.MemAlloc(&ptr[b], (size_t)bytes[b]), "cuMemAlloc");
        }
        for (p = 0; p < nparam; p++) {
            const char *what;
            unsigned long long offset;
            token(kit, "param", i);
            what = token(kit, NULL, i);
            if (strcmp(what, "pointer") == 0) {
                unsigned long long buf;
                offset = number(kit, i);
                buf = number(kit, i);
                if (buf >= (unsigned long long)nbuf || offset + 8 > param_size)
                    die(1, "kit.txt: run %d: a pointer parameter out of range", i);
                memcpy(params + offset, &ptr[buf], 8);
            } else if (strcmp(what, "word") == 0) {
                unsigned value;
                offset = number(kit, i);
                value = (unsigned)number(kit, i);
                if (offset + 4 > param_size)
                    die(1, "kit.txt: run %d: a word parameter out of range", i);
                memcpy(params + offset, &value, 4);
            } else {
                die(1, "kit.txt: run %d: parameter kind `%s`", i, what);
            }
        }
        cubin = read_file(path, &cubin_len);
        check(cu.ModuleLoadData(&module, cubin), "cuModuleLoadData");
        check(cu.ModuleGetFunction(&fn, module, kernel), "cuModuleGetFunction");
        for (launch = 0; launch < 2; launch++) {
            void *extra[] = {LAUNCH_PARAM_BUFFER_POINTER, params, LAUNCH_PARAM_BUFFER_SIZE,
                             &param_size, LAUNCH_PARAM_END};
            for (b = 0; b < nbuf; b++) {
                if (file[b]) {
                    check(cu.MemcpyHtoD(ptr[b], file[b], (size_t)bytes[b]), "cuMemcpyHtoD");
                    continue;
                }
                check(cu.MemsetD8(ptr[b], 0, (size_t)bytes[b]), "cuMemsetD8");
                if (chase[b]) {
                    /* A pointer chase: the first word holds its own address's
                       low 32 bits (the kernel keeps the high ones). */
                    unsigned low = (unsigned)(ptr[b] & 0xffffffffu);
                    check(cu.MemcpyHtoD(ptr[b], &low, 4), "cuMemcpyHtoD");
                }
            }
            check(cu.CtxSynchronize(), "cuCtxSynchronize");
            check(cu.EventRecord(start, NULL), "cuEventRecord");
            check(cu.LaunchKernel(fn, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                  0, NULL, NULL, extra),
                  "cuLaunchKernel");
            check(cu.EventRecord(stop, NULL), "cuEventRecord");
            check(cu.EventSynchronize(stop), "the kernel (cuEventSynchronize)");
            check(cu.EventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
        }
        out = malloc((size_t)bytes[0]);
        if (!out)
            die(1, "out of host memory");
        check(cu.MemcpyDtoH(out, ptr[0], (size_t)bytes[0]), "cuMemcpyDtoH");
        snprintf(out_path, sizeof out_path, "results/%04d.out", i);
        write_file(out_path, out, (size_t)bytes[0]);
        fprintf(times, "%04d %.9g\n", i, ms);
        free(out);
        free(cubin);
        for (b = 0; b < nbuf; b++) {
            check(cu.MemFree(ptr[b]), "cuMemFree");
            free(file[b]);
        }
        check(cu.ModuleUnload(module), "cuModuleUnload");
        if ((i + 1) % 100 == 0 || i + 1 == runs)
            fprintf(stderr, "run_kit: %d of %d\n", i + 1, runs);
    }
    if (fclose(times) != 0)
        die(1, "results/times.txt: %s", strerror(errno));
    fclose(kit);
    fprintf(stderr, "run_kit: done; now `keplersim bench %s --card .` (or --card DIR)\n", suite);
    return 0;
}
