// Parameters of main.bicep for GPU pool `variant-amd-v710` (rendered by gpuform from amd-v710-inference.yaml).
using 'main.bicep'

param location = 'eastus'

param adminUsername = 'azureuser'

param sshPublicKey = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIT6t8MFGDBjrDDzp2JXe3CIMMd6hupoyimypHKIa8Ja ops@example.com'
