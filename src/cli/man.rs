//! `gpuform completions SHELL` and `gpuform man`: what users of terraform, az and checkov expect
//! to find (issue 10, item 18). The command tree comes from the caller (`cli::command()`).

use super::common::{ExitCode, Failure, out};

#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Install: `gpuform man > ~/.local/share/man/man1/gpuform.1` and, per command, \
`gpuform man validate > ~/.local/share/man/man1/gpuform-validate.1` (then `man gpuform`); \
a subcommand's page: `gpuform man quota request` (or `quota-request`) is gpuform-quota-request(1). \
`gpuform man --list` names every page."
)]
pub struct ManArgs {
    /// The command whose page to print (gpuform-COMMAND(1), e.g. `validate`, `quota request`);
    /// without it, gpuform(1).
    #[arg(value_name = "COMMAND", num_args = 0..)]
    pub command: Vec<String>,
    /// Print the name of every page, one per line (gpuform, gpuform-validate, ...).
    #[arg(long, conflicts_with = "command")]
    pub list: bool,
}

pub fn run_completions(args: CompletionsArgs, mut cmd: clap::Command) -> Result<ExitCode, Failure> {
    let mut buf = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "gpuform", &mut buf);
    out(&String::from_utf8_lossy(&buf));
    Ok(ExitCode::Ok)
}

/// A roff man page (clap_mangen): gpuform(1), or gpuform-COMMAND(1).
pub fn run_man(args: ManArgs, top: clap::Command) -> Result<ExitCode, Failure> {
    let pages = man_pages(top);
    if args.list {
        out(&pages
            .iter()
            .map(|(n, _)| format!("{n}\n"))
            .collect::<String>());
        return Ok(ExitCode::Ok);
    }
    let want = if args.command.is_empty() {
        "gpuform".to_string()
    } else {
        format!("gpuform-{}", args.command.join("-"))
    };
    let Some((name, cmd)) = pages.into_iter().find(|(n, _)| *n == want) else {
        return Err(Failure::usage(format!(
            "`{}` is not a gpuform command",
            args.command.join(" ")
        ))
        .help("`gpuform man --list` names every page"));
    };
    out(&render_man(&name, cmd)?);
    Ok(ExitCode::Ok)
}

/// Every man page: gpuform(1) and one per command and subcommand `--help` lists (the pages a
/// page's SUBCOMMANDS section names), without the built-in `help` command.
pub fn man_pages(top: clap::Command) -> Vec<(String, clap::Command)> {
    fn walk(cmd: &clap::Command, name: &str, bin: &str, out: &mut Vec<(String, clap::Command)>) {
        let mut page = cmd.clone().disable_help_subcommand(true);
        if name != "gpuform" {
            // clap names are &'static str (no `string` feature): leak the page's name
            let full: &'static str = Box::leak(name.to_string().into_boxed_str());
            page = page
                .name(full)
                .bin_name(bin)
                .version(env!("CARGO_PKG_VERSION"));
        }
        out.push((name.to_string(), page));
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            walk(
                sub,
                &format!("{name}-{}", sub.get_name()),
                &format!("{bin} {}", sub.get_name()),
                out,
            );
        }
    }
    let top = top
        .version(env!("CARGO_PKG_VERSION"))
        .disable_help_subcommand(true);
    let mut out = Vec::new();
    walk(&top, "gpuform", "gpuform", &mut out);
    out
}

const ENVIRONMENT: &[(&str, &str)] = &[
    (
        "NO_COLOR",
        "Turns colour off under --color auto (as does output that is not a terminal).",
    ),
    (
        "GPUFORM_AUTH",
        "The default of --auth (auto, cli, env, workload-identity, github, pipelines, managed-identity, ...).",
    ),
    (
        "AZURE_SUBSCRIPTION_ID",
        "The subscription when --subscription is not given.",
    ),
    (
        "AZURE_TENANT_ID, AZURE_CLIENT_ID, AZURE_CLIENT_SECRET",
        "A service principal's credentials (--auth auto uses them).",
    ),
    (
        "AZURE_FEDERATED_TOKEN_FILE",
        "Workload identity: the federated token file (with AZURE_TENANT_ID and AZURE_CLIENT_ID).",
    ),
    (
        "ACTIONS_ID_TOKEN_REQUEST_URL, ACTIONS_ID_TOKEN_REQUEST_TOKEN",
        "GitHub Actions OIDC (permissions: id-token: write).",
    ),
    (
        "SYSTEM_OIDCREQUESTURI, SYSTEM_ACCESSTOKEN, AZURESUBSCRIPTION_*",
        "Azure Pipelines workload identity federation through a service connection.",
    ),
    (
        "IDENTITY_ENDPOINT, MSI_ENDPOINT",
        "A managed identity (App Service, Functions, Container Apps, Arc).",
    ),
    (
        "AZURE_AUTHORITY_HOST",
        "The Entra authority, overriding the cloud's.",
    ),
    (
        "GPUFORM_ADMIN_PASSWORD",
        "deploy: the Windows adminPassword (a secure parameter never written to a file).",
    ),
    (
        "GPUFORM_TODAY",
        "The date (YYYY-MM-DD) price ages are counted to (tests, reproducible reports).",
    ),
    (
        "XDG_CACHE_HOME, HOME",
        "Where cost --refresh-prices caches prices ($XDG_CACHE_HOME/gpuform, else ~/.cache/gpuform).",
    ),
    (
        "CI",
        "Set: commands that would ask (quota request) do not; init asks nothing.",
    ),
    (
        "SSL_CERT_FILE",
        "Extra CA certificates for HTTPS (a proxy in front of Resource Manager).",
    ),
];

/// EXIT STATUS of a page (README "Exit codes"; the commands' --help says the same).
fn exit_status(name: &str) -> &'static str {
    match name {
        "gpuform-validate" => {
            "0 clean or warnings; 1 errors (or warnings with --deny-warnings); 2 usage or I/O errors."
        }
        "gpuform-render" => {
            "0 written or up to date; 1 the spec has errors or --check differs; 2 usage or I/O errors."
        }
        "gpuform-preflight" => {
            "0 the spec's region passes; 1 it is blocked; 2 usage or access errors, a check that could not be answered, or you answered no to --request-quota's question."
        }
        "gpuform-cost" => {
            "0 estimate printed; 1 a --fail-above or --fail-increase-percent gate failed; 2 usage or I/O errors, or an undecided gate (prices missing, or the expected cost unknown)."
        }
        "gpuform-simulate" => {
            "0 printed (with --tune: a candidate meets --wait-p95); 1 no candidate meets the target; 2 usage or I/O errors."
        }
        "gpuform-deploy" => {
            "0 deployed, or what-if shown; 1 the deployment failed or was rejected, preflight blocked, or --fail-on-delete found deletions; 2 usage or access errors, a missing resource group, no --yes without a terminal, or you answered no (nothing was changed); 130 interrupted (a started deployment keeps running)."
        }
        "gpuform-status" => {
            "0 printed; 2 usage or access errors, or every section not available; 130 interrupted (--watch)."
        }
        "gpuform-destroy" => {
            "0 gone (or nothing to do); 1 a deletion failed or a deployment still runs; 2 usage or access errors, no --yes without a terminal, or you answered no (nothing was deleted); 130 interrupted (started deletions finish in Azure)."
        }
        "gpuform-quota" | "gpuform-quota-request" => {
            "0 every request approved, nothing missing, or a dry run printed; 1 a request was denied, escalated or is still pending; 2 usage or access errors, or you answered no (nothing was requested); 130 interrupted (submitted requests keep going)."
        }
        "gpuform-gpu-report" => {
            "0 printed; 1 the measured peak exceeds gpuMemoryGiB; 2 an unreadable export, usage or I/O errors."
        }
        _ => {
            "0 success (warnings allowed); 1 findings (validation errors, a blocked preflight, a failed deployment, a failed budget gate); 2 usage, I/O or access errors, or a question answered no; 130 interrupted (Ctrl-C)."
        }
    }
}

fn roff_escape(s: &str) -> String {
    let s = s.replace('\\', "\\e").replace('-', "\\-");
    if s.starts_with('.') || s.starts_with('\'') {
        format!("\\&{s}")
    } else {
        s
    }
}

/// One page: clap_mangen's sections, then ENVIRONMENT and EXIT STATUS, then VERSION.
fn render_man(name: &str, cmd: clap::Command) -> Result<String, Failure> {
    let fail =
        |e: std::io::Error| Failure::from_error(ExitCode::Usage, "cannot render the man page", &e);
    let has_args = cmd.get_arguments().any(|a| !a.is_hide_set());
    let has_subs = cmd.get_subcommands().any(|s| !s.is_hide_set());
    let has_extra = cmd.get_after_help().is_some() || cmd.get_after_long_help().is_some();
    let man = clap_mangen::Man::new(cmd);
    let mut buf = Vec::new();
    man.render_title(&mut buf).map_err(fail)?;
    man.render_name_section(&mut buf).map_err(fail)?;
    man.render_synopsis_section(&mut buf).map_err(fail)?;
    man.render_description_section(&mut buf).map_err(fail)?;
    if has_args {
        man.render_options_section(&mut buf).map_err(fail)?;
    }
    if has_subs {
        man.render_subcommands_section(&mut buf).map_err(fail)?;
    }
    if has_extra {
        man.render_extra_section(&mut buf).map_err(fail)?;
    }
    let mut s = String::from_utf8_lossy(&buf).into_owned();
    s.push_str(".SH ENVIRONMENT\n");
    for (var, what) in ENVIRONMENT {
        s.push_str(&format!(
            ".TP\n\\fB{}\\fR\n{}\n",
            roff_escape(var),
            roff_escape(what)
        ));
    }
    s.push_str(&format!(
        ".SH \"EXIT STATUS\"\n{}\n",
        roff_escape(exit_status(name))
    ));
    let mut buf = Vec::new();
    man.render_version_section(&mut buf).map_err(fail)?;
    s.push_str(&String::from_utf8_lossy(&buf));
    Ok(s)
}
