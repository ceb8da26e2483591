// Parameters of main.bicep for GPU pool `adversarial-strings` (rendered by gpuform from adversarial.yaml).
using 'main.bicep'

param location = 'westeurope'

param adminUsername = 'azureuser'

param sshPublicKey = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIT6t8MFGDBjrDDzp2JXe3CIMMd6hupoyimypHKIa8Ja o\'brien \${user}'
