// Parameters of main.bicep for GPU pool `variant-serve-gpu` (rendered by gpuform from serving-gpu.yaml).
using 'main.bicep'

param location = 'westeurope'

param adminUsername = 'azureuser'

param sshPublicKey = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIT6t8MFGDBjrDDzp2JXe3CIMMd6hupoyimypHKIa8Ja ops@example.com'
