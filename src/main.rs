// The allocator of the gpuform binary (not of the library, which leaves the choice to whoever
// links it): rendering builds and drops many small strings and JSON nodes per spec, and at
// platform scale (issue 41) glibc's malloc/free were a third of a render's CPU; mimalloc cut a
// render of 1,000 specs from 2.43 to 1.88 s CPU (.ci/render-scale, same machine and load).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(gpuform::cli::main());
}
