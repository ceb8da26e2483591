// GPU pool `variant-devbox-spoke`, rendered by gpuform from lz-devbox-spoke.yaml.
// Generated file: change the spec and run `gpuform render` instead of editing it.
// Sections: parameters, network, identity, key vault and encryption, compute, autoscale,
// monitoring, outputs. azuredeploy.json is the same deployment as ARM JSON.
targetScope = 'resourceGroup'

metadata name = 'variant-devbox-spoke'

// ---------------------------------------------------------------- parameters

@description('Region of every resource. main.bicepparam sets the spec\'s region (westeurope).')
param location string = resourceGroup().location

@description('Admin user name of the VMs.')
param adminUsername string = 'azureuser'

@description('SSH public key of the admin user (OpenSSH format). Password sign-in is disabled.')
param sshPublicKey string = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIT6t8MFGDBjrDDzp2JXe3CIMMd6hupoyimypHKIa8Ja ops@example.com'

var tags = {
  'costCenter': 'cc-1'
  'env': 'dev'
  'project': 'p'
  'team': 't'
}

// ---------------------------------------------------------------- network (landing zone)
// The pool joins the platform team's subnet: its NSG, route table and egress apply. This
// template creates no VNet, subnet, NSG, NAT gateway or route table. An `existing` resource in
// another resource group takes `scope: resourceGroup(subscription, group)` (Bicep, "Existing
// resources": "set the scope property"); the scale set's NICs must be in the subnet's
// subscription (Learn, "Create, change, or delete a network interface").

resource vnet 'Microsoft.Network/virtualNetworks@2025-05-01' existing = {
  name: 'vnet-lz-dev-weu'
  scope: resourceGroup('7c1f2e3d-4a5b-4c6d-8e9f-0a1b2c3d4e5f', 'rg-lz-dev-network')

  resource workloadSubnet 'subnets' existing = {
    name: 'snet-devboxes'
  }

  resource privateEndpointSubnet 'subnets' existing = {
    name: 'snet-devboxes'
  }
}

// ---------------------------------------------------------------- identity
// The pool's user-assigned identity and every role assignment of the deployment, each scoped
// to one resource with a deterministic name: guid(scope, principal, role).

resource identity 'Microsoft.ManagedIdentity/userAssignedIdentities@2024-11-30' = {
  name: 'id-variant-devbox-spoke'
  location: location
  tags: tags
}

// Key Vault Secrets User: The pool's identity reads secrets from the vault.
resource identitySecretsUser 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(vault.id, identity.id, '4633458b-17de-408a-b874-0445c86b69e6')
  scope: vault
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '4633458b-17de-408a-b874-0445c86b69e6')
    principalId: identity.properties.principalId
    principalType: 'ServicePrincipal'
    description: 'The pool\'s identity reads secrets from the vault.'
  }
}

// Monitoring Metrics Publisher: The pool's identity publishes GPU telemetry through the data collection rule.
resource identityGpuDcrPublisher 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(gpuDcr.id, identity.id, '3913510d-42f4-4e42-8a64-420c390055eb')
  scope: gpuDcr
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '3913510d-42f4-4e42-8a64-420c390055eb')
    principalId: identity.properties.principalId
    principalType: 'ServicePrincipal'
    description: 'The pool\'s identity publishes GPU telemetry through the data collection rule.'
  }
}

// ---------------------------------------------------------------- key vault and encryption
// RBAC authorization, soft delete, purge protection and a firewall that denies by default.

// Globally unique and stable per resource group: at most 24 characters.
var vaultName = 'kv-variant-${uniqueString(resourceGroup().id)}'

resource vault 'Microsoft.KeyVault/vaults@2025-05-01' = {
  name: vaultName
  location: location
  tags: tags
  properties: {
    tenantId: subscription().tenantId
    sku: {
      family: 'A'
      name: 'standard'
    }
    enableRbacAuthorization: true
    enableSoftDelete: true
    softDeleteRetentionInDays: 90
    enablePurgeProtection: true
    enabledForDeployment: false
    enabledForTemplateDeployment: false
    enabledForDiskEncryption: false
    publicNetworkAccess: 'Disabled'
    networkAcls: {
      bypass: 'AzureServices'
      defaultAction: 'Deny'
      ipRules: []
      virtualNetworkRules: []
    }
  }
}

// The vault is reachable only through this private endpoint and its private DNS zone.
resource vaultPrivateEndpoint 'Microsoft.Network/privateEndpoints@2025-05-01' = {
  name: 'pep-variant-devbox-spoke-vault'
  location: location
  tags: tags
  properties: {
    subnet: {
      id: vnet::privateEndpointSubnet.id
    }
    customNetworkInterfaceName: 'pep-variant-devbox-spoke-vault-nic'
    privateLinkServiceConnections: [
      {
        name: 'pep-variant-devbox-spoke-vault'
        properties: {
          privateLinkServiceId: vault.id
          groupIds: [
            'vault'
          ]
        }
      }
    ]
  }
  // privateDnsZones.mode: policy: the landing zone's DeployIfNotExists policy adds the zone
  // group and the DNS record; this template creates no zone and no zone group.
}

// ---------------------------------------------------------------- dev box
// autoShutdown on one instance: a standalone VM, Standard_NC4as_T4_v3, image ubuntu-22.04, that is
// stopped (deallocated) at 19:00 and started at 08:00 (W. Europe Standard Time). Deallocation keeps
// the OS and data disks (home directory, notebooks, the installed driver); a stopped VM pays
// only for its disks. No autoscale setting: there is nothing to scale.

resource vmNic 'Microsoft.Network/networkInterfaces@2025-05-01' = {
  name: 'nic-vm-variant-devbox-spoke'
  location: location
  tags: tags
  properties: {
    // No public IP: reach the box over the spec's inbound rules (VPN, peering, Bastion).
    enableAcceleratedNetworking: true
    enableIPForwarding: false
    ipConfigurations: [
      {
        name: 'ipconfig1'
        properties: {
          primary: true
          privateIPAllocationMethod: 'Dynamic'
          subnet: {
            id: vnet::workloadSubnet.id
          }
        }
      }
    ]
  }
}

resource vm 'Microsoft.Compute/virtualMachines@2025-11-01' = {
  // checkov:skip=CKV_AZURE_50: the GPU driver is installed by the NVIDIA/AMD VM extension (Microsoft.HpcCompute); a GPU dev box without it has no usable GPU
  name: 'vm-variant-devbox-spoke'
  location: location
  tags: tags
  identity: {
    type: 'UserAssigned'
    userAssignedIdentities: {
      '${identity.id}': {}
    }
  }
  properties: {
    hardwareProfile: {
      vmSize: 'Standard_NC4as_T4_v3'
    }
    osProfile: {
      computerName: 'variant-devbox-spoke'
      adminUsername: adminUsername
      linuxConfiguration: {
        disablePasswordAuthentication: true
        provisionVMAgent: true
        ssh: {
          publicKeys: [
            {
              path: '/home/${adminUsername}/.ssh/authorized_keys'
              keyData: sshPublicKey
            }
          ]
        }
      }
      allowExtensionOperations: true
    }
    storageProfile: {
      imageReference: {
        publisher: 'Canonical'
        offer: '0001-com-ubuntu-server-jammy'
        sku: '22_04-lts-gen2'
        version: 'latest'
      }
      osDisk: {
        name: 'osdisk-vm-variant-devbox-spoke'
        createOption: 'FromImage'
        caching: 'ReadWrite'
        diskSizeGB: 128
        managedDisk: {
          storageAccountType: 'Premium_LRS'
        }
        // Kept even if the VM is deleted; stopping never touches disks.
        deleteOption: 'Detach'
      }
    }
    securityProfile: {
      encryptionAtHost: true
      // Explicit: Trusted Launch by default would turn Secure Boot on under the GPU driver.
      securityType: 'Standard'
    }
    networkProfile: {
      networkInterfaces: [
        {
          id: vmNic.id
          properties: {
            primary: true
            deleteOption: 'Detach'
          }
        }
      ]
    }
    diagnosticsProfile: {
      // Boot diagnostics in managed storage.
      bootDiagnostics: {
        enabled: true
      }
    }
  }
}

// GPU driver: cuda (NvidiaGpuDriverLinux), CUDA 12.8
resource vmExtension0 'Microsoft.Compute/virtualMachines/extensions@2025-11-01' = {
  parent: vm
  name: 'NvidiaGpuDriverLinux'
  location: location
  tags: tags
  properties: {
    publisher: 'Microsoft.HpcCompute'
    type: 'NvidiaGpuDriverLinux'
    typeHandlerVersion: '1.6'
    autoUpgradeMinorVersion: true
    settings: {}
  }
}

// GPU collector: the script cloud-init runs on scale sets (gzip + base64, run by /bin/sh), which writes /usr/local/lib/gpuform/gpuform-gpu and enables the systemd units gpuform-gpu-collect.timer (every minute, /var/log/gpuform/gpu-*.json) and gpuform-gpu-health.service (127.0.0.1:8711).
resource vmExtension1 'Microsoft.Compute/virtualMachines/extensions@2025-11-01' = {
  parent: vm
  name: 'GpuCollector'
  location: location
  tags: tags
  properties: {
    publisher: 'Microsoft.Azure.Extensions'
    type: 'CustomScript'
    typeHandlerVersion: '2.1'
    autoUpgradeMinorVersion: true
    settings: {
      script: 'H4sIAAAAAAAC/71de3fbtpL/X58CZY63ZKKXnaQPpeq9ru2mvo1jrx9pu6pWoUnKZi2RKknZVnPz3fc3A4AEKVJ22t5tz4klEhgAM4N5A3ryWe8yjHrpdeuJuFosp3EyH4jXJxfCi2ezwMviRNjRbeiHbiedhyKOvEC4Yh5GyywQnW9F79ZNerP4qqc609/O0+5vaRzR690/lkkgjuIoJEi7V0GUORjJjXyRXQfiOnBn2bUIIn8Rh1HGz3YXi1nouVkICD+o9/dZEKX0YJHEl0Eq7O2dL7t9/L89+OrL7W2n20qDTHSCZSuM0sydzUTHF5256H/58qXoLVOaoufOerPwUk90beYtjCm+bWit/3bwV3zzzefA0PfHp0eTg+PvP289+Yw7ER4Xq+w6jp4XyKziMsFagyTwxeVKN3kl1KTlU28WL/1OCIy1RbKM6FG6SrNg7mOZTwBZCHMyCrY4+PnkYO/8YF+MJLn+7c79Mbeu/a9MSNuA2FEQu1k4DxJngKaB+NfZ8VsxC/FpESS8JpArbgZfyxa/4L+jo/195g4sLnB5wUz0dT5pBm77bubqhRNXJMtZ0BYY7vtwFqQ9Au/wBBn268XyPJgF8yBLVpO9NyJzL2fBq2bwrnh3JO6u4zTghWZxPBNTN5ylbYG5Zddgk/Q6vkvFNLiTyEjpaSTCLBVp+AfY2k3bzfDvkjADDxNaFf8n8Z2wzzI3W6bis6Gw4hvLYaYAhrrNgN6+O9w/3B2IYn92xe7R/kCA9Lxb7dPjvbn4onv/SlzGGIepmF67iyB12iKYpUEz8CT25hJIPAPHinDuXqHbK7leL15GGfgVyCcUn+wdiktMHrjCFCKaheywAQshdsoyEwH+AjxjWWHmPX3pzMM0DaOr94SdlCUGNskqVThbddd2QhoktwGB/guSZQPT5SIHi56tsC92+n3xwTKASphEx8AaCEt+XVkfwUzgS5pCM/iZm4Kt3PkCDUOwVhKk17xotdw2D2ddROq7JWLC210ILrU3Qs6X+HkqktC7JjQCy+ASsXN/Lzw3ScIgZQTxm1d4EcVRh166UQoW30DEeDnz5UZ2U3ER3UTxHXZ2FGcin6mSWm/iq1QcRuAhxv/CBfbtudzwIHMXFOz6wSy8DZLVK56NlmxE19ALMP0AnJ7E0RzSoS1I4kvpAegQj4sZJg+yuNMM/BS4tFKJTwMYNvAiTjO5XGYsmusqoFGIS0ikadl++Pb1wdn55ODt/snx4dvzHkmdvVzonC5J1FTa7u+d9tIM+JivvTo7Pz3YPQL4f7iLsINVEkmGlUa7J4eTdwenZ4fYp0Ao71fQh9g+ngoInjkmX53g0e7Pk+9+OT84I5lD2woEvAzchHfVTRCJKYstiG5sK2Ax9LHUMFsJuwJo783hwdvzyeF+W7hLPwygItbRsXuxj1Z7Bw54NJ5X354f/3jwdnJx+oaZUio20jQQvi5LbUVMB2JCvNj5GvAxuZdgNTB9AgkdQqhICp6SvO7s8mebZJXYxiZoixeCpNAdiWH0ATdB2xMRmYBSRIRSKkEhAP6UdAJvpasYHxhB9DbCxlAc0hXneCCRBZhRAPKwMMLOQc/VHXZaINn4hBW8eE4jRb6b+NCKl4mbrFgqYKLEv+LiEuJxKUUgaQOh7IKBod1JuZMWgNqgLSIOCuYG8rBNUmeQoxd/J2+OX0/2D0/bpYdn57vnB+XHh0f7Z5PvD98cFI/+dfydemQQ9O3xT8I+PDsWX33R3xYX53tO0QECvQwUmuSInnRb4XwRJ5kANQOyEPT3q1l8qT9fZ9miy+I40Y9IJ+vPcao/JXn3NPZugiz/tryEPPaCNG8JE0h/NEddJjPgvxskSZxUni3cJK22S4Lfl8Bs/nQZ+q3Wf18cnP4ihsJukUizCDyIO1+0Q5hq921q1I7cedBegtfCP1jUk7hqz4N5nKy6yzTw9ecshiHXJmkUJFDn4BpqaEnIixjCtOsn7l078Dw56bS7jLw4SSBUAr97G0OIgV8VHD8hcThRwsJqOS3FA5htnHaVOOxeBZlt1XCK1RZW1RCznFbOMg9AydsxHHCrAeMJ75i7OLmZxRD+NjYx7UjeOOlyQZs8xWYDa4u5u5KKXe665fwSbSDNfosvqYHcBrTB2mwSQVkHV0BTK+fZDdPM21Sn2CPomOePBwcnk/3dX84AZKf18+E+/oIoXjxfAM12Yr19d3o0ED+HvvjVHv2vM376K3ad/av/zEHvVssPphAud7YzYBJOw3vIp+b5YEuhG7UMp7Kx7McGVQB+iPJ9080/QGEs6IPNHbCQrV86W/POln++9cNg62iwdfY/lgPWhYLzArtl6t/sjzCaxsMcFP3zB7DYXWZe3lBOqHF4Wl4tgGLMeeglMIe9OPKHfY0WYNv24JTIFUJWF0tdAEXFFu6qlm3YGgvaExPYfYtlNjxPliB6BjmsP2J0vBs+7ztVtC268oMX+2gI6ZL5aKk+YSe1pKnjBQtIz+OzA9pbbXMS5xL2wf0ihPvlkHoN1ogDGw/4BzOBJnaQM8Bybt+qdVqWtauZmBVgYXxDte6dvWMn4S1xMqnd0dve7riNP1BQZ8sFSZ3ApwfKVhI80XEXYBn8LTB3SxwRLmxnHbFqmlNsugxTMhf9zp0tA4a21pxmo5aidle+nAjjyeW1Kh2Ig1kb8hfWv+hsRxop4dxP7QIpJ0kIO46MirNFnPVOg6vlzE0c1rtwp7C/GFsbjQJiEO8aG4x8zMs4znK08HO578hw7P4Gm942VJ9Fs2G3Um2/NPE2bNNcQ1o1OMa60XvQqjorIl4EkY1XzDvTcgMDeTSLLklFe1pwcQGAl1IHoqn7GlMXlHaMLedCV9ZNX4H98LGOm34HksqqsXsq/5bljEUafdDrbX/xdXfn5Yuu+tvTFOxpmvZIsiKiUDJyd/o7253+Tqe/bbVLYOEhYO+mww/WkQJEflMGWWB9bFfkV47FynzxlfGK74UA2WEEJ2UEM6sNDQQnjfQBR91ZdUTizv5yvuAYRFtMnRr57n4C3QryyG3lLX1XK3y9vRIPQoWE3YS0F4TpyCqkjjWWU5hLzZbC8Peuodj2LvZ3xTsJaPBr+tQe9Ttfd8fQawzMIUahTTIUfbm7WUoYU5p3r5J4ubC3uelcNsJ+lPO8D/2JNGBseOleMCEzuxAHpFBhDERZbozfBEkUzMgmF9xBeiRJcBvGCBxIOxyalwMLQP+XX7dffAW1pyWA7DMsZlniZGN/FpOpIZ+GMu2Sz2o7JUmrCKboVbO1oMPQd2T9FgM/7szLZmR2dG7435j+RRyAv3SiuLOA7Z9Y47znM+ra6fAUSMPQ3zFvV54UoxcNLlWXNaKTrpXAoAJTPIQ1053CRkXk0K6l6Ghs0nNGzE1dYeZbbUvK0JQVkg1fOn93E6yGkPQOCfonovMX/+NQEMehnNY7uNLHp2SK2YqBCVkIVkEMK4djg9BWLdjSgzfQQ7ypt/DCnh+Q7iBjT/soG4DoJgwlXmQ9CnOhK2bJA8gpAoDVv9/u93cscvkouOUCnx6CNGTVkitOjtFA9O/7z4UfpjCTELiNoyyh+AD81VMINrh2J6fH2PdfbveBVwDcEcoaQcCDouCeh7gk/AQKDB9CgoIRMkcGPyjK9rn4Yf/osLd/wu54LKZwFcj5QPwbA78AgyNmSq4vNW6RyU5L2Huze3Z2ILFM86Ol0tgaQWdHh5Pd09fUYCS3K5gS8Uy4MZJ36QvcGbIs6cFt4s6LF+TaFN/Yo1FCXT9KYn/pZeQwFe2WUQhpHfrFE+naaM+GH7P6brfGSsKAthNY86kNMeLnMhPygAOQoMF7+eJ9JQg5yIOTOsRIL+V4ZJvBn+doYy5ayAbqS/Mer8FOJLLIne3SP3bJ5sj9Yuup5RhivCSNyhKp1B/QCaU8cQBosCRua0QUVBZwbTuPH4XZtXkQ7zGDNMlEKYcQRoqWgWk53ZL4kctj088DZDfJUpqoXeFQpwwuIgm5bUqsSHECCbkJkcwmrioY4T19ZfKf7J7/0NZGqiBpA2Mc+RjszYSjfrBLVRIFL6g1R2WiWORCgNI3hbphTiBYVUFCfYldoZqw68NMIz4NFo54JkYlOmhpg/aAbjnjsotUphnCprQ6E5s+41A3C1NSa/bC0U9JfqSpvWjTl58nxz86tRblolXvC9Cqq6YG1n+uTXROSHEGIYGYIgFoF9jqknjoqd5Affeqi0TDTne7sw0xh8wffykQ2qCum9DVzaWPkhDOBpN5jYslZayO5Yz64426XUHIzRqyCyckiFijlnDCwVg/9pYcoQNruCxGwE/Snc0dv654g0QZ+C8AFwUU4iA5nd6EiwW59+4sjREsCaKWylWsxDVSLAJRRAqBcWh6ngazW8pzWqOfdk/fIrg6Ft1u10JsQgYYRzTYB3LPZMiUjCwsJEe3H5A6T7S5S3Pfl4/U5iYGD+FwXVPXAC4g6aHAWLViQTQgDYNG1uiD9YAAWJOCQBemoCbTReBrIj/TOKNwMM7p84Aj2yRuwlQ7HjaGagt7FqYghB9Cj9ZvBjRr2A6wQybUnS37gvQqlwYywyvtUEIwvvwNMoUTKNS+yLI5TBQLSmuifJkRiDb+iGm5FMVW2ygtdkVlCexS8OSLuSuvhf5ICZSDzwNNTKAqGJqaUx8KML6PrpgTrojAPFJ5RldqOixxzOf5VCxYNmQtaq19S9QrRUsinY7s5SnFaRjMOGPkqlDKQMCCwhQ0Ksle+mAxLGCx24UggAmR8WfpyNpfIBFHs2LUMuZditrAsnpVhF8shF8sbgatn13jJSuJBvzfriFfhmN4rXIyTn03BCtmG5C91t4OycnhMI7jbA7vrPXFIiU98jjRGgCO6CgpSFvMaWD5RejdkOJ5yhqsLO6mYQLeJjOLX74XNhwDCBm4aakjs+AktgoalnQnp/dCmeZLy/j082/U8Ea3Ku/WAvE3TgOVKl6rtuQ0A5piQmZ1sEuoda1YiBowRMHJnJvV6xzvj6EN5/OZC8v+M0kbbIUJ5SBt8i7arE0KGtj0BoqVBCEiZWkKd9IpUvtUzRB6PcrY4g/LIWlByyg6VRSoSo2cLrlHCZg6kEBjYnNJaIYZroMK/ByNc+FYVpA5i6qGKlxYoHieXpEjQiNiGdSlrKSppCS114IoI4RIbfQF7zL09Eqhr7x8qIyQDP0t3xJbWJ+K/TFOMOyHqxGLqPFAGGKuZikmKmTvEipG22OHJcxoLIUPdec8wJ8agV5thk+CkihUMtDUmzty/ZVnTyPOaUTlxkusSBd+5s4vfVdcYWZqjoacIBhyobzH5qoFhO7HghbKZUJLKQHld6vK9pW3pd2poo70n5syTVRr+tYESb5rgoPMGcCw5JqDSSx8J2RywmyS59KoxGfCfiBB2tTKcgzuA3a7Lsy0yC/HP2kq9poHxdt27enrxfKQEofDHKt1TS6QVRyydJHMtE4HiQzKPmKKtTDewl+QMAhlsv3cTWBETtj9rut2UeQwT4LEgyk7LHC5JCFDeLqa3k9cxBpuEdGXCCy9kl/qwB9xGvQCGdGj8DsDMuIJkxwEJUwnHFZoBnFOlNoAQ1KyEch5kYHdM0AYiVkCch1nKbIVcoWVd4HfsMQTcpH3Ycv+JAGvNWC51659bFsqYgI5wwnvifzuPNjcW4Jjo2zyid1c7ElgbPInR2tsX/PowPMuilT2UOeQaL+uZZHwsAbCPosQFbOWjC2lirLACleQClqqryvJ8jrS7SG4rsGTcC23cOozplIP54qbhfKf0dy59SvlvrA/IFyc+H0YtR/gJnwknuAQhX7w0XlQdY8RcigF9eTMlc9Q1tUqkZb4hgJ5hP+heygVU8IYmbH2zegFHLm2uHWkQYdP2pvoQjvP00rMCmPemFEhxoIlzSaGhUCHH16R6Vp1O7TpVyFUkwtUWcnfbYvkBK23QpiWJc9NkdepQXu5QZ3u+xSbQBauIMIHOjD9jEAlyU2tQMljtt6d7h4JFrdK9Ar7OySJDLVI8rqpC4n6pn5/rzqVi9qsS5USvOBwszjcf1hzqh57VMmFNHRIiQRiD/P5mXr+CeqU0UTBgiWFzbYYLw9pSy0xGd0lkclPemK7/+Krl19+8aDK1IAkrUuQ5KMNoNYVZ62u4PUZbZH2DyKICPGbylE4wt6jVTe1I/Wq2zxGuzxK63pNim1P6jNxxmpQvE7cxXXoIRKMkBuV6DF0Yf/EM26AsStV6ad2fpymfJQylOJBMqZ8Lf7T2o5cGUPRBfcLnnOh7I4NZ5NSfeB5DoSWq9u7XGFFnMgl65+nXHLFQb60h097nNKk4k0BXslWueKLownVlQ+LbFA5U6cyt9SHRC3JFTnTHLxEr9CDDC1d80EF50Mjt6B9S/WeLGjKA+qnWtNwvzU/dx2a1g5WgWgNMn+1GSZeqOV/kyO+NngxWiN9vYDNUVXP4rmkrWdI+k+eURiSl6Lr8636lqr4ffg9wt0NwI6kaTS0tnyKM+FfxUBp9ViBjUSN9vzBW7nizWJZe04Rc8eqHWRL2BKJBvPWbNLSkyIk/YQMCw4bem6Uj8VzhEEXyHIuYU/d5QyBexfJ3MyR5e946VKhmbARHwvuqAZKF0AZ0FPiCFklLEvpr2GwU1qKOUIejVg3SB6hSxvI/ACJNXnN8xc19NW05aK9ViNZG4im0nWC7RSxlVLibcB6ko7QSFxQfohDwfZDvFFD9i1hZJIeIH6B3NwglrvU2PnFniMBpA37YTmEJxEuPQGDwBoBl4ksLpdzl6sEZ6hqcj8gGymIPEBw84JyjrH6VLNODDV3M++6wj7S5XHU+ZIcw7Imnrg1NdiVgHDZgmB2JTZVXFoEZJHzu4RWa5Jk2tImPNSEX6nmVUNoDLi6NDT+mWg0lh0qhUcNZ811QM/1VLakixKvPEBFxubbAnNe765nYm2lr3IsDsCaZM/b8i0lEzQx5ekvoA/ItMzFUCP1WCmm0nhl9qldd8E/BqoH/+8SgFH5DCFKOvcWwK8hR57nLV2fKKYTVxtEQ4PY17LBQOpWWsYnUM558NHgZb8/3rxblYgi0uW6lMqcCGlOrdY0euQD5yKG9gmTnKv9C0iG9FBU3ayazUEeEF9WrYLKHTkWkRUW6C4XVK5dpnidYmZvVU1Fki2+qZBMk4sFjGxabqAJtvayZDTSDHWtNNd11dmMquStUih4XE5WVGuq62xJbRvehz6QRoWIuiKuviixMYJiVlFyPB5OY7Iizh5a4H4+F8LP6USBmw299LYdxbJoFR8oI5nqTEnZCS8q8YxACsxxtCgXeJZyYXy+lmpOllkpIlGWWFMaxsvzS9SRHX1qrCsf2pYzrkpOYucp56O2t2uqgarZdb2oWge+WezQf/WOfEn66Dr0KeU+GtuyYz8d7YwbW7AjPx09b2hR455TbnQ6etE0atkll41fbm6c+92y9RdNrUuutWz7ZVNbw92VLb9qallxJgvEft3Uo3CNeAc1tZHuUr696tuVvVRQs99ACdMZpS2w2b9YE1SPMz1L5qf1kJnvGFv1MyqaxU5i0x1c/xeihkoQ/PWA12YbvZBdppLWS/lravohDnkMd+Sqvi50atwoUQ2ePkbvswImeUbIrlf0ufYsU5MpNLIkEq0xqWhTZVbb6SPc1JBxVW2gVikhGatqsizySVe1vRF+Kc5XRZjThE6yVcrz+OhcZh7AS/nYqzpMZxfHPc0jdU5xNElXxlK12gMVejmsugI8KrigHEC1Au9TTq40VCZFsnDj2/L5BHVIQp7CtgvTQpac6l1h6UNpdLqJTu/puoA5lV1mNMspn7irPWonA09pd+7eBH4IWyI/eAteTbNJfMPiZ72dcSCppiWdlSF08bmplt7/VESQo8KiQ2qvg4hr8XzkgeQ51OL9njxdk9ArDmVSMPA6Trnc2jbkvfVufkgAaFCVPaMHXLhqtNKntkotF/oht2YjXR3nMiSJdaBwD3GVontOiqLFqWTgf9FJzEGFnWWzj8XRDjbVNp3wgqhRZydyua3qjJWvbvjpSgY3BS9rXDPV45HWK3fjEqfKhHNOYamypY6kYeOXeW5rvuXruoNipxEYStmuHTzaIMumXT5aa+fnklKbjj0iLjW5CVapOleZws3nYwbpkGxDDDKgLCocvF/1gTl1WQP7zzO7JPpKwxclNhyW/cDHpXNORUpddRsUF1dYsjXxAABAFxTyVx1Kmy82UV4CYlR20dSq4i3jgdfPaxVnteQE8tNaGEmfbOW+jxnZcqps99ka29WdQmo8SaYpVyeNhJZGdCpfj/yEJX7dNRopJpSqOw3u2A8gXZAGs6m8hcGl63SKeNC8uDrEeSVcBVwaEWK5YH1i3MZQd2ECJ2aN0NSNPM6FIOdSX/shscUTtfUC5FUM8j4ZvjGnOJ5NJdJXWgV4yyyekp9jZ6IjSoeT/WCWuUiZgrfzzo5Ts7tyH5pqq5sPdJR37FNNa7P+dmUwJwkFlrWA6iBZvb0zLhXsu6tK9pq6f6MWVGYA5sJ5fCthmaqvT6D0hpQ3X/w9Z7EqzLN7cthS93b8ePCLPDGkbzshIbG/x+ek5M0l9Mm4noS/qqtA6HN+8Qd9yW8k4ZsC3IxKazIuoEYcHaFJjP1i5+vey/v7HgWJ+ZKZdn4p2CzmGYo7N8wqd7cgWBovE1g4ytSh60PMi6yKe0HyG0Gg/5sv/nBau+fnB0cn57T4Fy2a90+7h+d0WUAfsGmyctp0EZe+fgVxWwpN0klGPglGJPYTN6TbPCgn59LFUDw9hyHu7b55Q/Cf9/ND2LQ+GM7RNLzSph0XLN4Mms8sS0JRYOJGKua8fNag4UczdkiS3OtyQSxUrtTk//ynxVUBo4LSVESC70TtcbNZhhb5/TBs7j4w0aIxz1bPy5iAAc6IklSHqbNO0ahgsbGyQcsPP+lsvPHd0yYmq0HzTPHzvlHiozWKOsFMFeD+CtJUKcY+H/DIk0eSwwN/g639mFPN6m/d2WbtPnT1xJJuPrVEGecmRsx7U7o/nJ+fMHbqL0Wg6zLo0oWgABnUgKw18+sh9qnAUV+yAC7iIyH6YgG+hsf2zPsWNl9j9JiLBeiEpUwE39GNVJoOv7MJkwQppIpHZgyYKJdq43wzNTHr7yPLm4VUKBf6zIflhtJUCsi4sf6L3XPrH5r5C3k5Vj7xP1Sp16MO5VcgPONhnpWuviEeUqj93WlvPGvfKpxsSeqJZGha0do+2O7nm5kak/m90+9vOApZvdgApjVtlpElz69NmLpU9GpZ1bNAdsFKbfFjsFKfzleLNTdSmuTqpLaxublWFAMMBLE5OeMqryNXSlMZDbCAcVcdTbKW2bTzFUktZSRajmZN0kgTvp1K9c43hNJxBdOe8W0pdCOe1GPqMJgbse2l2w9Kt1yxzGCDjeUFH1Fs9NATV8k9NQcphA1wynWzypvURGiOxrbYzWDsXUKDrnnnrnnoXl8NAMNJ68o2NaHIk2vm/FiZ41Hhvu+Ip09zNOnzJ1CnVCoFAikJWkhYelQUTxJIYsV2bpbW2RA5psD6MsVTe2kbHutL2rbS0k0VijXMbVaoyW4ioxtWjyr0Slvt92UMU14rUcPDrm+lLKpxIxjT0NLgVBQhNdJdJBEVStk/c2FY2NqicR550Qcet7lIcUgUIKQjouAPrZPjM7ICc7lRvhBkd4lWiYqtkyT5Tt44R/YJkbPceg/ZBYjJDnEcNXaLSxN76th3qf19Z552pGjtqPl2QhkQSWwqie/SPy9ss+zJOLlQ3ZxyOxXCrHQ4iO5V/GYoZdk3MNL6tdJLOtKGhFKEqBUqcsDR4PlDYsWYBo8PnxJMLU9Oy/kgGFp8/ayUUDJmJ+O4NCcTpGaNZ2IbkDRflAHIG6hmQbCwH5ZuJS/FGFPtZrihsHZsDxa6eV7fln5wQIeWp9M0oHtt4ztpv8rTrHRpzCzIApkBk9f/seHPkNrsMcLw5hARn0srzpqxR5lXJ3+ak6eiAcusXD2rz64x7EG1emvNE6RvZUryrKU8Jhiqtpn7f6PejuSb8QNHXLlMmpOGBUiJQzBS3zHLVWpGZbnbrwlPqEhTctkQmUiD4MbmscsZE8hreXAoyco9jORlzU0Dyh3hBCWFKrjs+5JjT4P6BCKE883aGxr92ZDj/gRqvWx0zfLIXW0kVFUaU+X2AattWiQM0FkH+cCZ5FrCqf2BQdXGuKTSHbhgsrZyFs5Dw1A45VsgpzICKW8dLq79VPdZEsKA2vfc9b24XGVBmm8Bht6WFw8PuVp9p7Uhakghe0KhGTGkDGtDkDC3zilcuG2yOY8r7+WloZ9RsF4uroyjFR/25dal503z1hwDiDv1ENe2CYPSFDYK5uTEhup0p55zAcycmuma26Ydp6ISa5fFvjJElFAyTu5NR1BYJyVzNJMX0ZKlu6A0F2mg4lYztuBKsYDcsl4vB9W+Ux6A3XwhGsM1r0RrujCJINWJAbWy4Z+9kSzvnx9g4BB7RUuY8Yoyo5bWyxbiHcentX+o9lq6nGVmIJrzPQ9keNpcCjPQSl2ZmWSYWB+LmtybOhrQcLoCB+kdrQRVspOcy5rsgrps4bJ810JZLFTCFxXJSCdGyJjO40nrcmhdaCoXztjpI9rqhWS4fHjbl0OWN21l96xb7q0aiR/f1N2StxmFgO88Ym0Fd0ltNxCXo872GNkFIq5UkfrZtvLklYpUQ9ON20M5G8dIQ8idhdQI5xo+OdWgTZaGVIPcbSWm5xmMiCENayBdpepiS5UmsIybzgd0i1qqRAdd7wbr81dOM2lgmqPH63Flc7wiuEyyT0acDdlns3GbR5To7nBVhqWERh55MW4v5xjYTFtxL1VgNv2ki2CaczB1d7rViSj6z83k6aum61bTkZQZ4//Ulau89fki9yGVsEMuIZvhZo683XciL1RFZFa6HaULKKUdp5Np0oBkULXmP1yYdnHf/EMyuoik1N0f+YQdojxYzpQePHx9vswuVW+ON26Fb63Nt7jLHgzIl1WJH7DOGfwP4wLp7ncwtIkRlb+qmqipE9/68eT1wblN+S5T/bALo/Wk5u1Ws2zccJU/Q/lYIxRpzC6l3yagzSKO0oBdp7oG0pmyy65wu8YVfkznN0F0lV2re2rJmmMR7FS6Fj3T6pzvSGgq0SLFd45OyJaJkh+M07Z46iZXaZVXpMyYI+1h47W+IoP8afKmaU78mL68kDew4CtEMafrVUbHyJ3qPLsKanHjnbGjCxclrG8BXIks3U/XAEjwz8fVDs9LFUdW6a4y2RV6UF1MWLu3mmpNHLPgWI6GlT1fWypzsbFQydXEkgaPE3+f8UfbtvIfmrDaJVzAbNHMX4EmwUwownhbur6tZENV57qzNle5S4zJTjbsoEVCkzMUWlXTqJ7DQjKZxFvXcHy2f7Dxx23oXvKz0i/ciH+r3/04OT49xxc5zbysQQscsCtmNOF7ESYTntRkQsw7majl0nyoFs1mlqZvjCinZfzUT8u7nsf+pl8VMn8nSP+gUJB5PXX5nPrbq/u5HZWrWPt1odFFFGbj1n6Qeog+kpwYmr8tpBLy5o80Iea84WeZsNVHZ3KscYuk0BDaK72Os9bBfeCdkXM/fMSPIGnSbKuimdbZksP5B8ChqlHcLuPuk7DBPz70J3Ehg0rS8MBiqagqGbeOoz3YJfSbDcOnHfwvng6eDqB2dz3YbK63QsR+uA25NjqUl9+NWz+5dI3kdytOvCHCDtRALf+JRSkb5k9SuPpTNtUfv2pxuH8YBRmVA+pZGkT+JLrK3USAW6cBh3qG7uwOUQj9lfD0srW/wlYKvQs0H64Ceun6x9FsdUIXPg17tWicw/AMO0t0qUOlxJuXzWCzBXOYEUlAFp3xHPG2S5CXbte9E81M04z51v8BWi6Nm+5sAAA='
      skipDos2Unix: true
    }
  }
  dependsOn: [
    vmExtension0
  ]
}

// Azure Monitor Agent: ships the GPU collector's JSON lines; signs in with the pool's user-assigned identity (mi_res_id).
resource vmExtension2 'Microsoft.Compute/virtualMachines/extensions@2025-11-01' = {
  parent: vm
  name: 'AzureMonitorLinuxAgent'
  location: location
  tags: tags
  properties: {
    publisher: 'Microsoft.Azure.Monitor'
    type: 'AzureMonitorLinuxAgent'
    typeHandlerVersion: '1.40'
    autoUpgradeMinorVersion: true
    enableAutomaticUpgrade: true
    settings: {
      authentication: {
        managedIdentity: {
          'identifier-name': 'mi_res_id'
          'identifier-value': identity.id
        }
      }
    }
  }
}

// Application health from the GPU collector (127.0.0.1): unhealthy when a GPU is missing or nvidia-smi fails. A standalone VM has no automatic repairs: the state shows as the VM's health (instance view) and the faults alert says how to recover.
resource vmExtension3 'Microsoft.Compute/virtualMachines/extensions@2025-11-01' = {
  parent: vm
  name: 'HealthExtension'
  location: location
  tags: tags
  properties: {
    publisher: 'Microsoft.ManagedServices'
    type: 'ApplicationHealthLinux'
    typeHandlerVersion: '2.0'
    autoUpgradeMinorVersion: true
    enableAutomaticUpgrade: true
    settings: {
      protocol: 'http'
      port: 8711
      requestPath: '/health'
      intervalInSeconds: 30
      numberOfProbes: 2
    }
  }
  dependsOn: [
    vmExtension0
    vmExtension1
  ]
}

// Stop: the DevTest Labs auto-shutdown schedule deallocates the VM every day at 19:00
// (W. Europe Standard Time). Its name must be shutdown-computevm-<VM name>.
resource vmShutdown 'Microsoft.DevTestLab/schedules@2018-09-15' = {
  name: 'shutdown-computevm-vm-variant-devbox-spoke'
  location: location
  tags: tags
  properties: {
    status: 'Enabled'
    taskType: 'ComputeVmShutdownTask'
    dailyRecurrence: {
      time: '1900'
    }
    timeZoneId: 'W. Europe Standard Time'
    notificationSettings: {
      // 30 minutes' warning to the alert emails (the mail links to postpone the shutdown).
      status: 'Enabled'
      timeInMinutes: 30
      emailRecipient: 'ops@example.com'
      notificationLocale: 'en'
    }
    targetResourceId: vm.id
  }
}

// Start: a Consumption Logic App starts the VM at 08:00 (W. Europe Standard Time) on Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday,
// calling the VM's start operation with its system-assigned identity. The time zone of a
// Recurrence trigger applies only with a startTime (without offset); the date is in the past.
resource vmStart 'Microsoft.Logic/workflows@2019-05-01' = {
  name: 'logic-variant-devbox-spoke-start'
  location: location
  tags: tags
  identity: {
    type: 'SystemAssigned'
  }
  properties: {
    state: 'Enabled'
    // Workflow Definition Language (schema 2016-06-01); `$schema` is only needed for a
    // definition referenced externally, and leaving it out keeps every cloud host name out.
    definition: {
      contentVersion: '1.0.0.0'
      triggers: {
        Start_on_schedule: {
          type: 'Recurrence'
          recurrence: {
            frequency: 'Week'
            interval: 1
            startTime: '2025-01-01T00:00:00'
            timeZone: 'W. Europe Standard Time'
            schedule: {
              weekDays: [
                'Monday'
                'Tuesday'
                'Wednesday'
                'Thursday'
                'Friday'
                'Saturday'
                'Sunday'
              ]
              hours: [
                8
              ]
              minutes: [
                0
              ]
            }
          }
        }
      }
      actions: {
        Start_VM: {
          type: 'Http'
          runAfter: {}
          inputs: {
            method: 'POST'
            // the cloud's own Resource Manager endpoint (environment()), never a literal host
            uri: uri(environment().resourceManager, '${vm.id}/start?api-version=2025-11-01')
            authentication: {
              type: 'ManagedServiceIdentity'
              audience: environment().resourceManager
            }
          }
        }
      }
      outputs: {}
    }
  }
}

// Desktop Virtualization Power On Contributor: start and read this VM only (no deallocate, write or delete).
resource vmStartRole 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(vm.id, vmStart.id, '489581de-a3bd-480d-9518-53dea7416b33')
  scope: vm
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '489581de-a3bd-480d-9518-53dea7416b33')
    principalId: vmStart.identity.principalId
    principalType: 'ServicePrincipal'
    description: 'The start workflow of the dev box starts it on working days.'
  }
}

// ---------------------------------------------------------------- monitoring

resource workspace 'Microsoft.OperationalInsights/workspaces@2025-02-01' = {
  name: 'log-variant-devbox-spoke'
  location: location
  tags: tags
  properties: {
    sku: {
      name: 'PerGB2018'
    }
    retentionInDays: 30
    features: {
      enableLogAccessUsingOnlyResourcePermissions: true
    }
  }
}

resource vaultDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'to-log-analytics'
  scope: vault
  properties: {
    workspaceId: workspace.id
    logs: [
      {
        category: 'AuditEvent'
        enabled: true
      }
      {
        category: 'AzurePolicyEvaluationDetails'
        enabled: true
      }
    ]
    metrics: [
      {
        category: 'AllMetrics'
        enabled: true
      }
    ]
  }
}

resource actionGroup 'Microsoft.Insights/actionGroups@2023-01-01' = {
  name: 'ag-variant-devbox-spoke'
  location: 'global'
  tags: tags
  properties: {
    groupShortName: 'variant-devb'
    enabled: true
    emailReceivers: [
      {
        name: 'email-1'
        emailAddress: 'ops@example.com'
        useCommonAlertSchema: true
      }
    ]
  }
}

// ---------------------------------------------------------------- GPU monitoring
// The collector (nvidia-smi once a minute while the dev box runs; the Custom Script Extension
// installs it: systemd units on Linux, scheduled tasks on Windows) writes JSON lines to
// /var/log/gpuform/gpu-*.json; the Azure Monitor Agent on the VM sends them through the data
// collection rule into the custom table GpuTelemetry_CL of the pool's workspace.

// The input stream: a `Custom-` stream, as Learn documents for JSON log files (the REST spec's
// list of known dataFlows streams names only the built-in Microsoft-* ones).
var gpuStream = 'Custom-GpuTelemetry'

resource gpuTable 'Microsoft.OperationalInsights/workspaces/tables@2025-02-01' = {
  parent: workspace
  name: 'GpuTelemetry_CL'
  properties: {
    plan: 'Analytics'
    retentionInDays: 30
    schema: {
      name: 'GpuTelemetry_CL'
      description: 'GPU telemetry from the gpuform collector: one row per GPU per minute, or one health row per VM.'
      columns: [
        {
          name: 'TimeGenerated'
          type: 'dateTime'
          description: 'When the collector sampled (UTC)'
        }
        {
          name: 'Computer'
          type: 'string'
          description: 'Host name of the VM'
        }
        {
          name: 'VmId'
          type: 'string'
          description: 'VM id from the instance metadata service'
        }
        {
          name: 'Priority'
          type: 'string'
          description: 'Spot or Regular'
        }
        {
          name: 'ExpectedGpus'
          type: 'int'
          description: 'GPUs the VM size has (whole GPUs; a partition counts as one)'
        }
        {
          name: 'GpuIndex'
          type: 'int'
          description: 'nvidia-smi index (AMD: amd-smi gpu); empty on a health row'
        }
        {
          name: 'GpuUuid'
          type: 'string'
          description: 'GPU UUID'
        }
        {
          name: 'GpuName'
          type: 'string'
          description: 'GPU model as nvidia-smi (AMD: amd-smi market_name) names it'
        }
        {
          name: 'UtilizationPercent'
          type: 'real'
          description: 'utilization.gpu (percent; AMD: gfx_activity)'
        }
        {
          name: 'MemoryUsedMiB'
          type: 'real'
          description: 'memory.used (MiB; AMD: used_vram)'
        }
        {
          name: 'MemoryTotalMiB'
          type: 'real'
          description: 'memory.total (MiB; AMD: total_vram)'
        }
        {
          name: 'TemperatureC'
          type: 'real'
          description: 'temperature.gpu (°C; AMD: hotspot, else edge)'
        }
        {
          name: 'PowerDrawW'
          type: 'real'
          description: 'power.draw (W; AMD: socket_power); empty where the driver does not report it (vGPU, GRID)'
        }
        {
          name: 'EccUncorrected'
          type: 'long'
          description: 'ecc.errors.uncorrected.volatile.total since the driver loaded (AMD: total_uncorrectable_count, amd-smi only); empty without ECC'
        }
        {
          name: 'XidErrors'
          type: 'long'
          description: 'Xid events since the previous sample (Linux: NVRM lines of the kernel log; Windows: nvlddmkm errors in the System event log); empty on AMD'
        }
        {
          name: 'XidCodes'
          type: 'string'
          description: 'Distinct Xid codes, e.g. 79,48'
        }
        {
          name: 'DriverVersion'
          type: 'string'
          description: 'NVIDIA driver version (AMD: amdgpu driver version)'
        }
        {
          name: 'CudaVersion'
          type: 'string'
          description: 'CUDA version the driver supports (AMD: the ROCm release installed, /opt/rocm/.info/version)'
        }
        {
          name: 'RunningJobs'
          type: 'int'
          description: 'Jobs the workload reports running on the VM: the integer its supervisor writes to /run/gpuform/jobs (Windows: C:\\ProgramData\\gpuform\\jobs); empty when it writes none'
        }
        {
          name: 'Status'
          type: 'string'
          description: 'ok, gpu-missing, nvidia-smi-failed, amd-smi-failed, rocm-smi-failed, no-gpu or tool-missing (AMD image without amd-smi/rocm-smi)'
        }
        {
          name: 'Healthy'
          type: 'boolean'
          description: 'What the health probe answers: false when the VM\'s GPUs are missing or the driver fails (repaired); true on tool-missing (reported, not repaired)'
        }
        {
          name: 'Message'
          type: 'string'
          description: 'What failed, on health rows'
        }
      ]
    }
  }
}

// Ingestion endpoint of the agent (public: the agent sends over HTTPS with the pool's identity;
// nothing listens on the VMs).
resource gpuDce 'Microsoft.Insights/dataCollectionEndpoints@2023-03-11' = {
  name: 'dce-variant-devbox-spoke'
  location: location
  tags: tags
  kind: 'Linux'
  properties: {
    description: 'Data collection endpoint of the GPU telemetry of variant-devbox-spoke.'
    networkAcls: {
      publicNetworkAccess: 'Enabled'
    }
  }
}

resource gpuDcr 'Microsoft.Insights/dataCollectionRules@2023-03-11' = {
  name: 'dcr-variant-devbox-spoke-gpu'
  location: location
  tags: tags
  kind: 'Linux'
  properties: {
    description: 'GPU telemetry (JSON lines of the gpuform collector) into GpuTelemetry_CL.'
    dataCollectionEndpointId: gpuDce.id
    streamDeclarations: {
      'Custom-GpuTelemetry': {
        columns: [
          {
            name: 'TimeGenerated'
            type: 'datetime'
          }
          {
            name: 'Computer'
            type: 'string'
          }
          {
            name: 'VmId'
            type: 'string'
          }
          {
            name: 'Priority'
            type: 'string'
          }
          {
            name: 'ExpectedGpus'
            type: 'int'
          }
          {
            name: 'GpuIndex'
            type: 'int'
          }
          {
            name: 'GpuUuid'
            type: 'string'
          }
          {
            name: 'GpuName'
            type: 'string'
          }
          {
            name: 'UtilizationPercent'
            type: 'real'
          }
          {
            name: 'MemoryUsedMiB'
            type: 'real'
          }
          {
            name: 'MemoryTotalMiB'
            type: 'real'
          }
          {
            name: 'TemperatureC'
            type: 'real'
          }
          {
            name: 'PowerDrawW'
            type: 'real'
          }
          {
            name: 'EccUncorrected'
            type: 'long'
          }
          {
            name: 'XidErrors'
            type: 'long'
          }
          {
            name: 'XidCodes'
            type: 'string'
          }
          {
            name: 'DriverVersion'
            type: 'string'
          }
          {
            name: 'CudaVersion'
            type: 'string'
          }
          {
            name: 'RunningJobs'
            type: 'int'
          }
          {
            name: 'Status'
            type: 'string'
          }
          {
            name: 'Healthy'
            type: 'boolean'
          }
          {
            name: 'Message'
            type: 'string'
          }
        ]
      }
    }
    dataSources: {
      logFiles: [
        {
          name: 'gpuTelemetry'
          streams: [
            'Custom-GpuTelemetry'
          ]
          filePatterns: [
            '/var/log/gpuform/gpu-*.json'
          ]
          format: 'json'
        }
      ]
    }
    destinations: {
      logAnalytics: [
        {
          name: 'workspace'
          workspaceResourceId: workspace.id
        }
      ]
    }
    dataFlows: [
      {
        streams: [
          gpuStream
        ]
        destinations: [
          'workspace'
        ]
        transformKql: 'source | project TimeGenerated = todatetime(TimeGenerated), Computer, VmId, Priority, ExpectedGpus, GpuIndex, GpuUuid, GpuName, UtilizationPercent, MemoryUsedMiB, MemoryTotalMiB, TemperatureC, PowerDrawW, EccUncorrected, XidErrors, XidCodes, DriverVersion, CudaVersion, RunningJobs, Status, Healthy, Message'
        outputStream: 'Custom-GpuTelemetry_CL'
      }
    ]
  }
  dependsOn: [
    // the output stream is the table
    gpuTable
  ]
}

resource gpuDcrAssociation 'Microsoft.Insights/dataCollectionRuleAssociations@2023-03-11' = {
  name: 'gpu-telemetry'
  scope: vm
  properties: {
    description: 'The dev box sends GPU telemetry through dcr-variant-devbox-spoke-gpu.'
    dataCollectionRuleId: gpuDcr.id
  }
}

// The dev box vm-variant-devbox-spoke is running (its collector reported for at least 45 of the last 60 minutes) and its GPUs averaged under 10%: it costs $0.658/h while it runs (pay-as-you-go list price in westeurope). It runs from 08:00 on Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday until 19:00 (W. Europe Standard Time): if nobody uses it then, set an earlier autoShutdown.time, a later autoShutdown.startTime, or weekends: true.
resource gpuAlertIdle 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-variant-devbox-spoke-gpu-idle'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'variant-devbox-spoke: dev box on but idle'
    description: 'The dev box vm-variant-devbox-spoke is running (its collector reported for at least 45 of the last 60 minutes) and its GPUs averaged under 10%: it costs $0.658/h while it runs (pay-as-you-go list price in westeurope). It runs from 08:00 on Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday until 19:00 (W. Europe Standard Time): if nobody uses it then, set an earlier autoShutdown.time, a later autoShutdown.startTime, or weekends: true.'
    severity: 3
    enabled: true
    scopes: [
      workspace.id
    ]
    evaluationFrequency: 'PT15M'
    windowSize: 'PT1H'
    criteria: {
      allOf: [
        {
          query: 'GpuTelemetry_CL\n| where Status == "ok"\n| summarize AvgUtilization = round(avg(UtilizationPercent), 1), ReportedMinutes = dcount(bin(TimeGenerated, 1m)) by Computer\n| where ReportedMinutes >= 45'
          timeAggregation: 'Average'
          metricMeasureColumn: 'AvgUtilization'
          operator: 'LessThan'
          threshold: 10
          // one alert per combination of these values
          dimensions: [
            {
              name: 'Computer'
              operator: 'Include'
              values: [
                '*'
              ]
            }
          ]
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    autoMitigate: true
    actions: {
      actionGroups: [
        actionGroup.id
      ]
      // e-mail subject with the measured value (preview; the common alert schema's paths)
      actionProperties: {
        'Email.Subject': 'variant-devbox-spoke: the dev box is on but its GPUs averaged \${data.alertContext.condition.allOf[0].metricValue}%, $0.658/h (\${data.essentials.monitorCondition})'
      }
    }
  }
  dependsOn: [
    // the query is validated against the table
    gpuTable
  ]
}

// A GPU used more than 90% of its memory in the last 15 minutes: a model or batch change that will run out of memory. The peak is also the measurement gpuMemoryGiB asks for (`gpuform gpu-report`).
resource gpuAlertVram 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-variant-devbox-spoke-gpu-vram'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'variant-devbox-spoke: VRAM pressure'
    description: 'A GPU used more than 90% of its memory in the last 15 minutes: a model or batch change that will run out of memory. The peak is also the measurement gpuMemoryGiB asks for (`gpuform gpu-report`).'
    severity: 2
    enabled: true
    scopes: [
      workspace.id
    ]
    evaluationFrequency: 'PT5M'
    windowSize: 'PT15M'
    criteria: {
      allOf: [
        {
          query: 'GpuTelemetry_CL\n| where Status == "ok" and MemoryTotalMiB > 0\n| extend MemoryPercent = 100.0 * MemoryUsedMiB / MemoryTotalMiB\n| summarize PeakMemoryPercent = round(max(MemoryPercent), 1), PeakMemoryGiB = round(max(MemoryUsedMiB) / 1024.0, 1) by Computer, GpuIndex'
          timeAggregation: 'Maximum'
          metricMeasureColumn: 'PeakMemoryPercent'
          operator: 'GreaterThan'
          threshold: 90
          // one alert per combination of these values
          dimensions: [
            {
              name: 'Computer'
              operator: 'Include'
              values: [
                '*'
              ]
            }
            {
              name: 'GpuIndex'
              operator: 'Include'
              values: [
                '*'
              ]
            }
          ]
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    autoMitigate: true
    actions: {
      actionGroups: [
        actionGroup.id
      ]
      // e-mail subject with the measured value (preview; the common alert schema's paths)
      actionProperties: {
        'Email.Subject': 'variant-devbox-spoke: a GPU at \${data.alertContext.condition.allOf[0].metricValue}% of its VRAM (\${data.essentials.monitorCondition})'
      }
    }
  }
  dependsOn: [
    // the query is validated against the table
    gpuTable
  ]
}

// The dev box reported Xid or uncorrected ECC errors, a GPU missing from nvidia-smi, or a failing driver. A standalone VM has no automatic repairs: move it to another host with `az vm redeploy --name vm-variant-devbox-spoke --resource-group <group>` (or deallocate and start it); both keep its OS and data disks.
resource gpuAlertFaults 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-variant-devbox-spoke-gpu-faults'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'variant-devbox-spoke: GPU faults'
    description: 'The dev box reported Xid or uncorrected ECC errors, a GPU missing from nvidia-smi, or a failing driver. A standalone VM has no automatic repairs: move it to another host with `az vm redeploy --name vm-variant-devbox-spoke --resource-group <group>` (or deallocate and start it); both keep its OS and data disks.'
    severity: 1
    enabled: true
    scopes: [
      workspace.id
    ]
    evaluationFrequency: 'PT5M'
    windowSize: 'PT1H'
    criteria: {
      allOf: [
        {
          query: 'let Since = now() - 10m;\nlet Seen = GpuTelemetry_CL\n| where TimeGenerated > now() - 60m\n| summarize FirstSeen = min(TimeGenerated) by Computer;\nlet Health = GpuTelemetry_CL\n| where TimeGenerated > Since and Status != "ok"\n| join kind=inner Seen on Computer\n| where FirstSeen <= now() - 30m\n| summarize FaultSamples = count(), LastMessage = take_any(Message) by Computer, Kind = Status;\nlet Xid = GpuTelemetry_CL\n| where TimeGenerated > Since and XidErrors > 0\n| summarize FaultSamples = dcount(TimeGenerated), XidCodeSet = make_set(XidCodes) by Computer, Kind = "xid";\nlet Ecc = GpuTelemetry_CL\n| where TimeGenerated > Since and Status == "ok" and isnotnull(EccUncorrected)\n| summarize arg_max(TimeGenerated, EccUncorrected), EccMin = min(EccUncorrected) by Computer, GpuIndex\n| where EccUncorrected > EccMin\n| summarize FaultSamples = sum(EccUncorrected - EccMin) by Computer, Kind = "ecc-uncorrected";\nunion Health, Xid, Ecc\n| project Computer, Kind, FaultSamples'
          timeAggregation: 'Total'
          metricMeasureColumn: 'FaultSamples'
          operator: 'GreaterThan'
          threshold: 0
          // one alert per combination of these values
          dimensions: [
            {
              name: 'Computer'
              operator: 'Include'
              values: [
                '*'
              ]
            }
            {
              name: 'Kind'
              operator: 'Include'
              values: [
                '*'
              ]
            }
          ]
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    autoMitigate: true
    actions: {
      actionGroups: [
        actionGroup.id
      ]
      // e-mail subject with the measured value (preview; the common alert schema's paths)
      actionProperties: {
        'Email.Subject': 'variant-devbox-spoke: GPU fault on a VM, \${data.alertContext.condition.allOf[0].metricValue} faulty sample(s) (\${data.essentials.monitorCondition})'
      }
    }
  }
  dependsOn: [
    // the query is validated against the table
    gpuTable
  ]
}

// The dev box vm-variant-devbox-spoke has been running for 45 minutes (its Azure Monitor Agent's Heartbeat rows) but wrote no row to GpuTelemetry_CL in the last 15 minutes: the idle, VRAM and fault alerts cannot see it. A deallocated box (nightly shutdown, or stopped by hand) writes no heartbeat and never fires. Check the gpuform-gpu collector on the VM (`systemctl status gpuform-gpu-collect.timer`; Windows: the scheduled task \gpuform\gpuform-gpu-collect), and the GpuCollector extension's status.
resource gpuAlertSilent 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-variant-devbox-spoke-gpu-telemetry-missing'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'variant-devbox-spoke: no GPU telemetry from the running dev box'
    description: 'The dev box vm-variant-devbox-spoke has been running for 45 minutes (its Azure Monitor Agent\'s Heartbeat rows) but wrote no row to GpuTelemetry_CL in the last 15 minutes: the idle, VRAM and fault alerts cannot see it. A deallocated box (nightly shutdown, or stopped by hand) writes no heartbeat and never fires. Check the gpuform-gpu collector on the VM (`systemctl status gpuform-gpu-collect.timer`; Windows: the scheduled task \\gpuform\\gpuform-gpu-collect), and the GpuCollector extension\'s status.'
    severity: 2
    enabled: true
    scopes: [
      workspace.id
    ]
    evaluationFrequency: 'PT5M'
    windowSize: 'PT45M'
    criteria: {
      allOf: [
        {
          query: 'let Running = toscalar(Heartbeat\n| where TimeGenerated > now() - 45m and _ResourceId endswith "/virtualmachines/vm-variant-devbox-spoke"\n| summarize Beats = dcount(bin(TimeGenerated, 1m)), FirstBeat = min(TimeGenerated), LastBeat = max(TimeGenerated)\n| extend Up = iff(Beats >= 35 and FirstBeat <= now() - 40m and LastBeat >= now() - 15m, 1, 0)\n| project Up);\nGpuTelemetry_CL\n| where TimeGenerated > now() - 15m and _ResourceId endswith "/virtualmachines/vm-variant-devbox-spoke" and isnotempty(Computer)\n| summarize Reporting = dcount(Computer)\n| extend Running = toint(coalesce(Running, 0))\n| extend SilentInstances = max_of(0, Running - Reporting)'
          timeAggregation: 'Maximum'
          metricMeasureColumn: 'SilentInstances'
          operator: 'GreaterThan'
          threshold: 0
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    autoMitigate: true
    actions: {
      actionGroups: [
        actionGroup.id
      ]
      // e-mail subject with the measured value (preview; the common alert schema's paths)
      actionProperties: {
        'Email.Subject': 'variant-devbox-spoke: the running dev box sends no GPU telemetry (\${data.essentials.monitorCondition})'
      }
    }
  }
  dependsOn: [
    // the query is validated against the table
    gpuTable
  ]
}

// GPU utilisation and memory, running hours per day against the schedule, idle GPU-hours and
// their cost this month, faults and the alerts fired.
resource gpuWorkbook 'Microsoft.Insights/workbooks@2023-06-01' = {
  name: guid(resourceGroup().id, 'variant-devbox-spoke-gpu-workbook')
  location: location
  tags: tags
  kind: 'shared'
  properties: {
    displayName: 'GPU dev box variant-devbox-spoke'
    category: 'workbook'
    sourceId: workspace.id
    serializedData: '{"version":"Notebook/1.0","items":[{"type":1,"content":{"json":"## GPU dev box `vm-variant-devbox-spoke`\\nSampled once a minute by the gpuform collector (`nvidia-smi`) into `GpuTelemetry_CL` while the box runs: 08:00 to 19:00 on Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday (W. Europe Standard Time). Idle: under 10% utilisation; VRAM alert above 90%."}},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where Status == \\"ok\\"\\n| summarize Utilization = avg(UtilizationPercent) by GpuIndex, bin(TimeGenerated, 5m)","size":0,"title":"GPU utilisation (%)","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"timechart"},"customWidth":"50","name":"GPU utilisation (%)"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where Status == \\"ok\\"\\n| summarize MemoryGiB = max(MemoryUsedMiB) / 1024.0 by GpuIndex, bin(TimeGenerated, 5m)","size":0,"title":"GPU memory used (GiB)","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"timechart"},"customWidth":"50","name":"GPU memory used (GiB)"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where TimeGenerated > startofmonth(now())\\n| summarize RunningHours = dcount(bin(TimeGenerated, 1m)) / 60.0 by Day = bin(TimeGenerated, 1d)\\n| extend ScheduledHours = 11.00\\n| order by Day asc","size":0,"title":"Running hours per day this month against the schedule (UTC days)","timeContext":{"durationMs":2678400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"barchart"},"customWidth":"50","name":"Running hours per day this month against the schedule (UTC days)"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where TimeGenerated > startofmonth(now()) and Status == \\"ok\\"\\n| summarize Utilization = avg(UtilizationPercent) by Computer, bin(TimeGenerated, 1h)\\n| where Utilization < 10\\n| summarize IdleVmHours = count()\\n| extend IdleCostUSD = round(IdleVmHours * 0.658, 2)","size":0,"title":"Idle GPU-hours and their cost this month","timeContext":{"durationMs":2678400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"tiles"},"customWidth":"50","name":"Idle GPU-hours and their cost this month"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where Status != \\"ok\\" or XidErrors > 0 or EccUncorrected > 0\\n| project TimeGenerated, Computer, Status, XidErrors, XidCodes, EccUncorrected, Message\\n| order by TimeGenerated desc","size":0,"title":"GPU faults and health rows","timeContext":{"durationMs":2678400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"table"},"customWidth":"50","name":"GPU faults and health rows"},{"type":3,"content":{"version":"KqlItem/1.0","query":"alertsmanagementresources\\n| where type =~ \\"microsoft.alertsmanagement/alerts\\"\\n| where tostring(properties.essentials.alertRule) contains \\"alert-variant-devbox-spoke-\\"\\n| project FiredAt = todatetime(properties.essentials.startDateTime), Rule = tostring(properties.essentials.alertRule), Severity = tostring(properties.essentials.severity), State = tostring(properties.essentials.monitorCondition)\\n| order by FiredAt desc","size":0,"title":"Alerts fired","queryType":1,"resourceType":"microsoft.resourcegraph/resources","crossComponentResources":["value::all"],"visualization":"table"},"name":"Alerts fired"}],"isLocked":false,"fallbackResourceIds":[],"$schema":"https://github.com/Microsoft/Application-Insights-Workbooks/blob/master/schema/workbook.json"}'
  }
  dependsOn: [
    gpuTable
  ]
}

// ---------------------------------------------------------------- outputs

@description('Resource id of the dev box VM.')
output vmId string = vm.id

@description('Principal id of the pool\'s managed identity (for more role assignments).')
output identityPrincipalId string = identity.properties.principalId

@description('Client id of the pool\'s managed identity (for SDK sign-in on the VMs).')
output identityClientId string = identity.properties.clientId

@description('URI of the Key Vault.')
output vaultUri string = vault.properties.vaultUri

@description('Resource id of the Log Analytics workspace.')
output logAnalyticsWorkspaceId string = workspace.id

@description('Resource id of the GPU workbook (open it in the portal: Monitor > Workbooks).')
output gpuWorkbookId string = gpuWorkbook.id
