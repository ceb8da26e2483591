// Parameters of main.bicep for GPU pool `variant-amd-mi300x` (rendered by gpuform from amd-mi300x-training.yaml).
using 'main.bicep'

param location = 'eastus'

param adminUsername = 'azureuser'

param sshPublicKey = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIT6t8MFGDBjrDDzp2JXe3CIMMd6hupoyimypHKIa8Ja ops@example.com'
