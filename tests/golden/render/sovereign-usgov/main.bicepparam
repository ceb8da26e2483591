// Parameters of main.bicep for GPU pool `finetune-usgov` (rendered by gpuform from sovereign-usgov.yaml).
using 'main.bicep'

param location = 'usgovarizona'

param adminUsername = 'azureuser'

param sshPublicKey = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIT6t8MFGDBjrDDzp2JXe3CIMMd6hupoyimypHKIa8Ja ops@example.com'
