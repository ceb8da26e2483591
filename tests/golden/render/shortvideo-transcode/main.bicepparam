// Parameters of main.bicep for GPU pool `shortvideo-transcode` (rendered by gpuform from shortvideo-transcode.yaml).
using 'main.bicep'

param location = 'eastus2'

param adminUsername = 'azureuser'

param sshPublicKey = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIT6t8MFGDBjrDDzp2JXe3CIMMd6hupoyimypHKIa8Ja ops@example.com'
