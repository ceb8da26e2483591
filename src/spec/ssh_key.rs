//! Whether a line is an OpenSSH public key: the `ssh-key` rule (`check::rules::compute`) and
//! `gpuform init`'s starter ([`super::starter`]) ask the same question.

/// Why `key` is not an OpenSSH public key, if it is not.
pub fn ssh_key_problem(key: &str) -> Option<String> {
    let key = key.trim();
    if key.contains("PRIVATE KEY") {
        return Some("this is a private key; never put it in a spec".into());
    }
    let mut parts = key.split_whitespace();
    let (Some(kind), Some(body)) = (parts.next(), parts.next()) else {
        return Some("expected `<type> <base64 key> [comment]`".into());
    };
    const TYPES: [&str; 7] = [
        "ssh-ed25519",
        "ssh-rsa",
        "ecdsa-sha2-nistp256",
        "ecdsa-sha2-nistp384",
        "ecdsa-sha2-nistp521",
        "sk-ssh-ed25519@openssh.com",
        "sk-ecdsa-sha2-nistp256@openssh.com",
    ];
    if !TYPES.contains(&kind) {
        return Some(format!(
            "`{kind}` is not an SSH public key type Azure accepts"
        ));
    }
    if body.len() < 16
        || !body.starts_with("AAAA")
        || !body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/' || b == b'=')
    {
        return Some("the key body is not base64 (it starts with AAAA in a real key)".into());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ssh_keys() {
        assert!(ssh_key_problem("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK0wmN/Cr3JXqmLW7u+g9pTh+wyqDHpSQEIQczXkVx9q ops@example.com").is_none());
        assert!(ssh_key_problem("ssh-ed25519").is_some());
        assert!(ssh_key_problem("ssh-dss AAAAB3NzaC1kc3MAAACBA").is_some());
        assert!(
            ssh_key_problem("-----BEGIN OPENSSH PRIVATE KEY-----")
                .unwrap()
                .contains("private")
        );
        assert!(ssh_key_problem("ssh-rsa not-base64!!").is_some());
    }
}
