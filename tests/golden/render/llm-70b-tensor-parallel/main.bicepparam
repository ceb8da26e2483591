// Parameters of main.bicep for GPU pool `llm-70b` (rendered by gpuform from llm-70b-tensor-parallel.yaml).
using 'main.bicep'

param location = 'eastus2'

param adminUsername = 'azureuser'

param sshPublicKey = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIT6t8MFGDBjrDDzp2JXe3CIMMd6hupoyimypHKIa8Ja ops@example.com'
