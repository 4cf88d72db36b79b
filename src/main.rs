fn main() {
    // Rust ignores SIGPIPE, so a closed pipe (`mparray kernels list | head`)
    // made every print panic; the default action ends the process quietly,
    // as other Unix tools do.
    #[cfg(unix)]
    // SAFETY: called first in main, before any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let code = mparray::cli::main();
    mparray::cli::exit(code)
}
