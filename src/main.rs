/// mimalloc instead of the system allocator: `validate` and `render` build many small strings
/// and trees per spec; glibc's malloc/free were about 30 % of `validate`'s CPU time on 1,000
/// specs (`.ci/validate-scale`) and a third of a render's (mimalloc cut a render of 1,000 specs
/// from 2.43 to 1.88 s CPU, `.ci/render-scale`; issue 41). The library keeps the system
/// allocator: the choice is the program's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(gpuform::cli::main());
}
