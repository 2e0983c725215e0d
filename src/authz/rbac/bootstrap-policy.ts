/**
 * kube-apiserver v1.32's default RBAC policy (its bootstrappolicy package), as data: every object
 * labelled kubernetes.io/bootstrapping=rbac-defaults that a fresh kube-apiserver v1.32.4 creates,
 * taken verbatim from one (`kubectl get clusterroles,clusterrolebindings -l ... -o json`, and the
 * namespaced Roles and RoleBindings of kube-system and kube-public), server-set metadata removed.
 * Rules name resources this server does not serve: clients expect kube's rules verbatim.
 * Aggregated roles (admin, edit, view, ...) carry no rules here; the aggregation controller fills them.
 * Generated; edit by regenerating rather than by hand.
 */
/* eslint-disable */
import type { KubeObject } from '../../api/types.ts';

export const DEFAULT_CLUSTER_ROLES: readonly KubeObject[] = [
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "admin",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "aggregationRule": {
   "clusterRoleSelectors": [
    {
     "matchLabels": {
      "rbac.authorization.k8s.io/aggregate-to-admin": "true"
     }
    }
   ]
  }
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "cluster-admin",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     "*"
    ],
    "resources": [
     "*"
    ],
    "verbs": [
     "*"
    ]
   },
   {
    "nonResourceURLs": [
     "*"
    ],
    "verbs": [
     "*"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "edit",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults",
    "rbac.authorization.k8s.io/aggregate-to-admin": "true"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "aggregationRule": {
   "clusterRoleSelectors": [
    {
     "matchLabels": {
      "rbac.authorization.k8s.io/aggregate-to-edit": "true"
     }
    }
   ]
  }
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:aggregate-to-admin",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults",
    "rbac.authorization.k8s.io/aggregate-to-admin": "true"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     "authorization.k8s.io"
    ],
    "resources": [
     "localsubjectaccessreviews"
    ],
    "verbs": [
     "create"
    ]
   },
   {
    "apiGroups": [
     "rbac.authorization.k8s.io"
    ],
    "resources": [
     "rolebindings",
     "roles"
    ],
    "verbs": [
     "create",
     "delete",
     "deletecollection",
     "get",
     "list",
     "patch",
     "update",
     "watch"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:aggregate-to-edit",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults",
    "rbac.authorization.k8s.io/aggregate-to-edit": "true"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "pods/attach",
     "pods/exec",
     "pods/portforward",
     "pods/proxy",
     "secrets",
     "services/proxy"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "serviceaccounts"
    ],
    "verbs": [
     "impersonate"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "pods",
     "pods/attach",
     "pods/exec",
     "pods/portforward",
     "pods/proxy"
    ],
    "verbs": [
     "create",
     "delete",
     "deletecollection",
     "patch",
     "update"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "pods/eviction"
    ],
    "verbs": [
     "create"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "configmaps",
     "events",
     "persistentvolumeclaims",
     "replicationcontrollers",
     "replicationcontrollers/scale",
     "secrets",
     "serviceaccounts",
     "services",
     "services/proxy"
    ],
    "verbs": [
     "create",
     "delete",
     "deletecollection",
     "patch",
     "update"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "serviceaccounts/token"
    ],
    "verbs": [
     "create"
    ]
   },
   {
    "apiGroups": [
     "apps"
    ],
    "resources": [
     "daemonsets",
     "deployments",
     "deployments/rollback",
     "deployments/scale",
     "replicasets",
     "replicasets/scale",
     "statefulsets",
     "statefulsets/scale"
    ],
    "verbs": [
     "create",
     "delete",
     "deletecollection",
     "patch",
     "update"
    ]
   },
   {
    "apiGroups": [
     "autoscaling"
    ],
    "resources": [
     "horizontalpodautoscalers"
    ],
    "verbs": [
     "create",
     "delete",
     "deletecollection",
     "patch",
     "update"
    ]
   },
   {
    "apiGroups": [
     "batch"
    ],
    "resources": [
     "cronjobs",
     "jobs"
    ],
    "verbs": [
     "create",
     "delete",
     "deletecollection",
     "patch",
     "update"
    ]
   },
   {
    "apiGroups": [
     "extensions"
    ],
    "resources": [
     "daemonsets",
     "deployments",
     "deployments/rollback",
     "deployments/scale",
     "ingresses",
     "networkpolicies",
     "replicasets",
     "replicasets/scale",
     "replicationcontrollers/scale"
    ],
    "verbs": [
     "create",
     "delete",
     "deletecollection",
     "patch",
     "update"
    ]
   },
   {
    "apiGroups": [
     "policy"
    ],
    "resources": [
     "poddisruptionbudgets"
    ],
    "verbs": [
     "create",
     "delete",
     "deletecollection",
     "patch",
     "update"
    ]
   },
   {
    "apiGroups": [
     "networking.k8s.io"
    ],
    "resources": [
     "ingresses",
     "networkpolicies"
    ],
    "verbs": [
     "create",
     "delete",
     "deletecollection",
     "patch",
     "update"
    ]
   },
   {
    "apiGroups": [
     "coordination.k8s.io"
    ],
    "resources": [
     "leases"
    ],
    "verbs": [
     "create",
     "delete",
     "deletecollection",
     "get",
     "list",
     "patch",
     "update",
     "watch"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:aggregate-to-view",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults",
    "rbac.authorization.k8s.io/aggregate-to-view": "true"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "configmaps",
     "endpoints",
     "persistentvolumeclaims",
     "persistentvolumeclaims/status",
     "pods",
     "replicationcontrollers",
     "replicationcontrollers/scale",
     "serviceaccounts",
     "services",
     "services/status"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "bindings",
     "events",
     "limitranges",
     "namespaces/status",
     "pods/log",
     "pods/status",
     "replicationcontrollers/status",
     "resourcequotas",
     "resourcequotas/status"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "namespaces"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "discovery.k8s.io"
    ],
    "resources": [
     "endpointslices"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "apps"
    ],
    "resources": [
     "controllerrevisions",
     "daemonsets",
     "daemonsets/status",
     "deployments",
     "deployments/scale",
     "deployments/status",
     "replicasets",
     "replicasets/scale",
     "replicasets/status",
     "statefulsets",
     "statefulsets/scale",
     "statefulsets/status"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "autoscaling"
    ],
    "resources": [
     "horizontalpodautoscalers",
     "horizontalpodautoscalers/status"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "batch"
    ],
    "resources": [
     "cronjobs",
     "cronjobs/status",
     "jobs",
     "jobs/status"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "extensions"
    ],
    "resources": [
     "daemonsets",
     "daemonsets/status",
     "deployments",
     "deployments/scale",
     "deployments/status",
     "ingresses",
     "ingresses/status",
     "networkpolicies",
     "replicasets",
     "replicasets/scale",
     "replicasets/status",
     "replicationcontrollers/scale"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "policy"
    ],
    "resources": [
     "poddisruptionbudgets",
     "poddisruptionbudgets/status"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "networking.k8s.io"
    ],
    "resources": [
     "ingresses",
     "ingresses/status",
     "networkpolicies"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:auth-delegator",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     "authentication.k8s.io"
    ],
    "resources": [
     "tokenreviews"
    ],
    "verbs": [
     "create"
    ]
   },
   {
    "apiGroups": [
     "authorization.k8s.io"
    ],
    "resources": [
     "subjectaccessreviews"
    ],
    "verbs": [
     "create"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:basic-user",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     "authorization.k8s.io"
    ],
    "resources": [
     "selfsubjectaccessreviews",
     "selfsubjectrulesreviews"
    ],
    "verbs": [
     "create"
    ]
   },
   {
    "apiGroups": [
     "authentication.k8s.io"
    ],
    "resources": [
     "selfsubjectreviews"
    ],
    "verbs": [
     "create"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:certificates.k8s.io:certificatesigningrequests:nodeclient",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     "certificates.k8s.io"
    ],
    "resources": [
     "certificatesigningrequests/nodeclient"
    ],
    "verbs": [
     "create"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     "certificates.k8s.io"
    ],
    "resources": [
     "certificatesigningrequests/selfnodeclient"
    ],
    "verbs": [
     "create"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:certificates.k8s.io:kube-apiserver-client-approver",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     "certificates.k8s.io"
    ],
    "resourceNames": [
     "kubernetes.io/kube-apiserver-client"
    ],
    "resources": [
     "signers"
    ],
    "verbs": [
     "approve"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:certificates.k8s.io:kube-apiserver-client-kubelet-approver",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     "certificates.k8s.io"
    ],
    "resourceNames": [
     "kubernetes.io/kube-apiserver-client-kubelet"
    ],
    "resources": [
     "signers"
    ],
    "verbs": [
     "approve"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:certificates.k8s.io:kubelet-serving-approver",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     "certificates.k8s.io"
    ],
    "resourceNames": [
     "kubernetes.io/kubelet-serving"
    ],
    "resources": [
     "signers"
    ],
    "verbs": [
     "approve"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:certificates.k8s.io:legacy-unknown-approver",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     "certificates.k8s.io"
    ],
    "resourceNames": [
     "kubernetes.io/legacy-unknown"
    ],
    "resources": [
     "signers"
    ],
    "verbs": [
     "approve"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:controller:attachdetach-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "persistentvolumeclaims",
     "persistentvolumes"
    ],
    "verbs": [
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "nodes"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "nodes/status"
    ],
    "verbs": [
     "patch",
     "update"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "pods"
    ],
    "verbs": [
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   },
   {
    "apiGroups": [
     "storage.k8s.io"
    ],
    "resources": [
     "volumeattachments"
    ],
    "verbs": [
     "create",
     "delete",
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "storage.k8s.io"
    ],
    "resources": [
     "csidrivers"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "storage.k8s.io"
    ],
    "resources": [
     "csinodes"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:controller:certificate-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     "certificates.k8s.io"
    ],
    "resources": [
     "certificatesigningrequests"
    ],
    "verbs": [
     "delete",
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "certificates.k8s.io"
    ],
    "resources": [
     "certificatesigningrequests/approval",
     "certificatesigningrequests/status"
    ],
    "verbs": [
     "update"
    ]
   },
   {
    "apiGroups": [
     "certificates.k8s.io"
    ],
    "resourceNames": [
     "kubernetes.io/kube-apiserver-client-kubelet"
    ],
    "resources": [
     "signers"
    ],
    "verbs": [
     "approve"
    ]
   },
   {
    "apiGroups": [
     "certificates.k8s.io"
    ],
    "resourceNames": [
     "kubernetes.io/kube-apiserver-client",
     "kubernetes.io/kube-apiserver-client-kubelet",
     "kubernetes.io/kubelet-serving",
     "kubernetes.io/legacy-unknown"
    ],
    "resources": [
     "signers"
    ],
    "verbs": [
     "sign"
    ]
   },
   {
    "apiGroups": [
     "authorization.k8s.io"
    ],
    "resources": [
     "subjectaccessreviews"
    ],
    "verbs": [
     "create"
    ]
   },
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:controller:clusterrole-aggregation-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     "rbac.authorization.k8s.io"
    ],
    "resources": [
     "clusterroles"
    ],
    "verbs": [
     "escalate",
     "get",
     "list",
     "patch",
     "update",
     "watch"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:controller:cronjob-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     "batch"
    ],
    "resources": [
     "cronjobs"
    ],
    "verbs": [
     "get",
     "list",
     "update",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "batch"
    ],
    "resources": [
     "jobs"
    ],
    "verbs": [
     "create",
     "delete",
     "get",
     "list",
     "patch",
     "update",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "batch"
    ],
    "resources": [
     "cronjobs/status"
    ],
    "verbs": [
     "update"
    ]
   },
   {
    "apiGroups": [
     "batch"
    ],
    "resources": [
     "cronjobs/finalizers"
    ],
    "verbs": [
     "update"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "pods"
    ],
    "verbs": [
     "delete",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:controller:daemon-set-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     "apps",
     "extensions"
    ],
    "resources": [
     "daemonsets"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "apps",
     "extensions"
    ],
    "resources": [
     "daemonsets/status"
    ],
    "verbs": [
     "update"
    ]
   },
   {
    "apiGroups": [
     "apps",
     "extensions"
    ],
    "resources": [
     "daemonsets/finalizers"
    ],
    "verbs": [
     "update"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "nodes"
    ],
    "verbs": [
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "pods"
    ],
    "verbs": [
     "create",
     "delete",
     "list",
     "patch",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "pods/binding"
    ],
    "verbs": [
     "create"
    ]
   },
   {
    "apiGroups": [
     "apps"
    ],
    "resources": [
     "controllerrevisions"
    ],
    "verbs": [
     "create",
     "delete",
     "get",
     "list",
     "patch",
     "update",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:controller:deployment-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     "apps",
     "extensions"
    ],
    "resources": [
     "deployments"
    ],
    "verbs": [
     "get",
     "list",
     "update",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "apps",
     "extensions"
    ],
    "resources": [
     "deployments/status"
    ],
    "verbs": [
     "update"
    ]
   },
   {
    "apiGroups": [
     "apps",
     "extensions"
    ],
    "resources": [
     "deployments/finalizers"
    ],
    "verbs": [
     "update"
    ]
   },
   {
    "apiGroups": [
     "apps",
     "extensions"
    ],
    "resources": [
     "replicasets"
    ],
    "verbs": [
     "create",
     "delete",
     "get",
     "list",
     "patch",
     "update",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "pods"
    ],
    "verbs": [
     "get",
     "list",
     "update",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:controller:disruption-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     "apps",
     "extensions"
    ],
    "resources": [
     "deployments"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "apps",
     "extensions"
    ],
    "resources": [
     "replicasets"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "replicationcontrollers"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "policy"
    ],
    "resources": [
     "poddisruptionbudgets"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "apps"
    ],
    "resources": [
     "statefulsets"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "policy"
    ],
    "resources": [
     "poddisruptionbudgets/status"
    ],
    "verbs": [
     "update"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "pods/status"
    ],
    "verbs": [
     "patch",
     "update"
    ]
   },
   {
    "apiGroups": [
     "*"
    ],
    "resources": [
     "*/scale"
    ],
    "verbs": [
     "get"
    ]
   },
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:controller:endpoint-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "pods",
     "services"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "endpoints"
    ],
    "verbs": [
     "create",
     "delete",
     "get",
     "list",
     "update",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "endpoints/restricted"
    ],
    "verbs": [
     "create"
    ]
   },
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:controller:endpointslice-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "nodes",
     "pods",
     "services"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "services/finalizers"
    ],
    "verbs": [
     "update"
    ]
   },
   {
    "apiGroups": [
     "discovery.k8s.io"
    ],
    "resources": [
     "endpointslices"
    ],
    "verbs": [
     "create",
     "delete",
     "get",
     "list",
     "update",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:controller:endpointslicemirroring-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "endpoints",
     "services"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "services/finalizers"
    ],
    "verbs": [
     "update"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "endpoints/finalizers"
    ],
    "verbs": [
     "update"
    ]
   },
   {
    "apiGroups": [
     "discovery.k8s.io"
    ],
    "resources": [
     "endpointslices"
    ],
    "verbs": [
     "create",
     "delete",
     "get",
     "list",
     "update",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:controller:ephemeral-volume-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "pods"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "pods/finalizers"
    ],
    "verbs": [
     "update"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "persistentvolumeclaims"
    ],
    "verbs": [
     "create",
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:controller:expand-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "persistentvolumes"
    ],
    "verbs": [
     "get",
     "list",
     "patch",
     "update",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "persistentvolumeclaims/status"
    ],
    "verbs": [
     "patch",
     "update"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "persistentvolumeclaims"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "services"
    ],
    "verbs": [
     "get"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:controller:generic-garbage-collector",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     "*"
    ],
    "resources": [
     "*"
    ],
    "verbs": [
     "delete",
     "get",
     "list",
     "patch",
     "update",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:controller:horizontal-pod-autoscaler",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     "autoscaling"
    ],
    "resources": [
     "horizontalpodautoscalers"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "autoscaling"
    ],
    "resources": [
     "horizontalpodautoscalers/status"
    ],
    "verbs": [
     "update"
    ]
   },
   {
    "apiGroups": [
     "*"
    ],
    "resources": [
     "*/scale"
    ],
    "verbs": [
     "get",
     "update"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "pods"
    ],
    "verbs": [
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "metrics.k8s.io"
    ],
    "resources": [
     "pods"
    ],
    "verbs": [
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "custom.metrics.k8s.io"
    ],
    "resources": [
     "*"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "external.metrics.k8s.io"
    ],
    "resources": [
     "*"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:controller:job-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     "batch"
    ],
    "resources": [
     "jobs"
    ],
    "verbs": [
     "get",
     "list",
     "patch",
     "update",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "batch"
    ],
    "resources": [
     "jobs/status"
    ],
    "verbs": [
     "update"
    ]
   },
   {
    "apiGroups": [
     "batch"
    ],
    "resources": [
     "jobs/finalizers"
    ],
    "verbs": [
     "update"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "pods"
    ],
    "verbs": [
     "create",
     "delete",
     "list",
     "patch",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:controller:legacy-service-account-token-cleaner",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resourceNames": [
     "kube-apiserver-legacy-service-account-token-tracking"
    ],
    "resources": [
     "configmaps"
    ],
    "verbs": [
     "get"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "secrets"
    ],
    "verbs": [
     "delete",
     "patch"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:controller:namespace-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "namespaces"
    ],
    "verbs": [
     "delete",
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "namespaces/finalize",
     "namespaces/status"
    ],
    "verbs": [
     "update"
    ]
   },
   {
    "apiGroups": [
     "*"
    ],
    "resources": [
     "*"
    ],
    "verbs": [
     "delete",
     "deletecollection",
     "get",
     "list",
     "watch"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:controller:node-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "nodes"
    ],
    "verbs": [
     "delete",
     "get",
     "list",
     "patch",
     "update",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "nodes/status"
    ],
    "verbs": [
     "patch",
     "update"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "pods/status"
    ],
    "verbs": [
     "patch",
     "update"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "pods"
    ],
    "verbs": [
     "delete",
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:controller:persistent-volume-binder",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "persistentvolumes"
    ],
    "verbs": [
     "create",
     "delete",
     "get",
     "list",
     "update",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "persistentvolumes/status"
    ],
    "verbs": [
     "update"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "persistentvolumeclaims"
    ],
    "verbs": [
     "get",
     "list",
     "update",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "persistentvolumeclaims/status"
    ],
    "verbs": [
     "update"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "pods"
    ],
    "verbs": [
     "create",
     "delete",
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "storage.k8s.io"
    ],
    "resources": [
     "storageclasses"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "nodes"
    ],
    "verbs": [
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "services"
    ],
    "verbs": [
     "get"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:controller:pod-garbage-collector",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "pods"
    ],
    "verbs": [
     "delete",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "nodes"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "pods/status"
    ],
    "verbs": [
     "patch"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:controller:pv-protection-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "persistentvolumes"
    ],
    "verbs": [
     "get",
     "list",
     "update",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:controller:pvc-protection-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "persistentvolumeclaims"
    ],
    "verbs": [
     "get",
     "list",
     "update",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "pods"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:controller:replicaset-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     "apps",
     "extensions"
    ],
    "resources": [
     "replicasets"
    ],
    "verbs": [
     "get",
     "list",
     "update",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "apps",
     "extensions"
    ],
    "resources": [
     "replicasets/status"
    ],
    "verbs": [
     "update"
    ]
   },
   {
    "apiGroups": [
     "apps",
     "extensions"
    ],
    "resources": [
     "replicasets/finalizers"
    ],
    "verbs": [
     "update"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "pods"
    ],
    "verbs": [
     "create",
     "delete",
     "list",
     "patch",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:controller:replication-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "replicationcontrollers"
    ],
    "verbs": [
     "get",
     "list",
     "update",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "replicationcontrollers/status"
    ],
    "verbs": [
     "update"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "replicationcontrollers/finalizers"
    ],
    "verbs": [
     "update"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "pods"
    ],
    "verbs": [
     "create",
     "delete",
     "list",
     "patch",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:controller:resourcequota-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     "*"
    ],
    "resources": [
     "*"
    ],
    "verbs": [
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "resourcequotas/status"
    ],
    "verbs": [
     "update"
    ]
   },
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:controller:root-ca-cert-publisher",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "configmaps"
    ],
    "verbs": [
     "create",
     "update"
    ]
   },
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:controller:route-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "nodes"
    ],
    "verbs": [
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "nodes/status"
    ],
    "verbs": [
     "patch"
    ]
   },
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:controller:service-account-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "serviceaccounts"
    ],
    "verbs": [
     "create"
    ]
   },
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:controller:service-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "services"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "services/status"
    ],
    "verbs": [
     "patch",
     "update"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "nodes"
    ],
    "verbs": [
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:controller:statefulset-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "pods"
    ],
    "verbs": [
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "apps"
    ],
    "resources": [
     "statefulsets"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "apps"
    ],
    "resources": [
     "statefulsets/status"
    ],
    "verbs": [
     "update"
    ]
   },
   {
    "apiGroups": [
     "apps"
    ],
    "resources": [
     "statefulsets/finalizers"
    ],
    "verbs": [
     "update"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "pods"
    ],
    "verbs": [
     "create",
     "delete",
     "get",
     "patch",
     "update"
    ]
   },
   {
    "apiGroups": [
     "apps"
    ],
    "resources": [
     "controllerrevisions"
    ],
    "verbs": [
     "create",
     "delete",
     "get",
     "list",
     "patch",
     "update",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "persistentvolumeclaims"
    ],
    "verbs": [
     "create",
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "persistentvolumeclaims"
    ],
    "verbs": [
     "delete",
     "update"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "pods/finalizers"
    ],
    "verbs": [
     "update"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:controller:ttl-after-finished-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     "batch"
    ],
    "resources": [
     "jobs"
    ],
    "verbs": [
     "delete",
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:controller:ttl-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "nodes"
    ],
    "verbs": [
     "list",
     "patch",
     "update",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:controller:validatingadmissionpolicy-status-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     "admissionregistration.k8s.io"
    ],
    "resources": [
     "validatingadmissionpolicies"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "admissionregistration.k8s.io"
    ],
    "resources": [
     "validatingadmissionpolicies/status"
    ],
    "verbs": [
     "get",
     "patch",
     "update"
    ]
   },
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:discovery",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "nonResourceURLs": [
     "/api",
     "/api/*",
     "/apis",
     "/apis/*",
     "/healthz",
     "/livez",
     "/openapi",
     "/openapi/*",
     "/readyz",
     "/version",
     "/version/"
    ],
    "verbs": [
     "get"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:heapster",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "events",
     "namespaces",
     "nodes",
     "pods"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "extensions"
    ],
    "resources": [
     "deployments"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:kube-aggregator",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "endpoints",
     "services"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:kube-controller-manager",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   },
   {
    "apiGroups": [
     "coordination.k8s.io"
    ],
    "resources": [
     "leases"
    ],
    "verbs": [
     "create"
    ]
   },
   {
    "apiGroups": [
     "coordination.k8s.io"
    ],
    "resourceNames": [
     "kube-controller-manager"
    ],
    "resources": [
     "leases"
    ],
    "verbs": [
     "get",
     "update"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "secrets",
     "serviceaccounts"
    ],
    "verbs": [
     "create"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "secrets"
    ],
    "verbs": [
     "delete"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "configmaps",
     "namespaces",
     "secrets",
     "serviceaccounts"
    ],
    "verbs": [
     "get"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "secrets",
     "serviceaccounts"
    ],
    "verbs": [
     "update"
    ]
   },
   {
    "apiGroups": [
     "authentication.k8s.io"
    ],
    "resources": [
     "tokenreviews"
    ],
    "verbs": [
     "create"
    ]
   },
   {
    "apiGroups": [
     "authorization.k8s.io"
    ],
    "resources": [
     "subjectaccessreviews"
    ],
    "verbs": [
     "create"
    ]
   },
   {
    "apiGroups": [
     "*"
    ],
    "resources": [
     "*"
    ],
    "verbs": [
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "serviceaccounts/token"
    ],
    "verbs": [
     "create"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:kube-dns",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "endpoints",
     "services"
    ],
    "verbs": [
     "list",
     "watch"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:kube-scheduler",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   },
   {
    "apiGroups": [
     "coordination.k8s.io"
    ],
    "resources": [
     "leases"
    ],
    "verbs": [
     "create"
    ]
   },
   {
    "apiGroups": [
     "coordination.k8s.io"
    ],
    "resourceNames": [
     "kube-scheduler"
    ],
    "resources": [
     "leases"
    ],
    "verbs": [
     "get",
     "list",
     "update",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "coordination.k8s.io"
    ],
    "resources": [
     "leasecandidates"
    ],
    "verbs": [
     "create",
     "delete",
     "deletecollection",
     "get",
     "list",
     "patch",
     "update",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "nodes"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "pods"
    ],
    "verbs": [
     "delete",
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "bindings",
     "pods/binding"
    ],
    "verbs": [
     "create"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "pods/status"
    ],
    "verbs": [
     "patch",
     "update"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "replicationcontrollers",
     "services"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "apps",
     "extensions"
    ],
    "resources": [
     "replicasets"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "apps"
    ],
    "resources": [
     "statefulsets"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "policy"
    ],
    "resources": [
     "poddisruptionbudgets"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "persistentvolumeclaims",
     "persistentvolumes"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "authentication.k8s.io"
    ],
    "resources": [
     "tokenreviews"
    ],
    "verbs": [
     "create"
    ]
   },
   {
    "apiGroups": [
     "authorization.k8s.io"
    ],
    "resources": [
     "subjectaccessreviews"
    ],
    "verbs": [
     "create"
    ]
   },
   {
    "apiGroups": [
     "storage.k8s.io"
    ],
    "resources": [
     "csinodes"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "storage.k8s.io"
    ],
    "resources": [
     "volumeattachments"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "namespaces"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "storage.k8s.io"
    ],
    "resources": [
     "csidrivers"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "storage.k8s.io"
    ],
    "resources": [
     "csistoragecapacities"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:kubelet-api-admin",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "nodes"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "nodes"
    ],
    "verbs": [
     "proxy"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "nodes/log",
     "nodes/metrics",
     "nodes/proxy",
     "nodes/stats"
    ],
    "verbs": [
     "*"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:monitoring",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "nonResourceURLs": [
     "/healthz",
     "/healthz/*",
     "/livez",
     "/livez/*",
     "/metrics",
     "/metrics/slis",
     "/readyz",
     "/readyz/*"
    ],
    "verbs": [
     "get"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:node",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     "authentication.k8s.io"
    ],
    "resources": [
     "tokenreviews"
    ],
    "verbs": [
     "create"
    ]
   },
   {
    "apiGroups": [
     "authorization.k8s.io"
    ],
    "resources": [
     "localsubjectaccessreviews",
     "subjectaccessreviews"
    ],
    "verbs": [
     "create"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "services"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "nodes"
    ],
    "verbs": [
     "create",
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "nodes/status"
    ],
    "verbs": [
     "patch",
     "update"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "nodes"
    ],
    "verbs": [
     "patch",
     "update"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "pods"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "pods"
    ],
    "verbs": [
     "create",
     "delete"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "pods/status"
    ],
    "verbs": [
     "patch",
     "update"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "pods/eviction"
    ],
    "verbs": [
     "create"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "configmaps",
     "secrets"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "persistentvolumeclaims",
     "persistentvolumes"
    ],
    "verbs": [
     "get"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "endpoints"
    ],
    "verbs": [
     "get"
    ]
   },
   {
    "apiGroups": [
     "certificates.k8s.io"
    ],
    "resources": [
     "certificatesigningrequests"
    ],
    "verbs": [
     "create",
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "coordination.k8s.io"
    ],
    "resources": [
     "leases"
    ],
    "verbs": [
     "create",
     "delete",
     "get",
     "patch",
     "update"
    ]
   },
   {
    "apiGroups": [
     "storage.k8s.io"
    ],
    "resources": [
     "volumeattachments"
    ],
    "verbs": [
     "get"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "serviceaccounts/token"
    ],
    "verbs": [
     "create"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "persistentvolumeclaims/status"
    ],
    "verbs": [
     "get",
     "patch",
     "update"
    ]
   },
   {
    "apiGroups": [
     "storage.k8s.io"
    ],
    "resources": [
     "csidrivers"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "storage.k8s.io"
    ],
    "resources": [
     "csinodes"
    ],
    "verbs": [
     "create",
     "delete",
     "get",
     "patch",
     "update"
    ]
   },
   {
    "apiGroups": [
     "node.k8s.io"
    ],
    "resources": [
     "runtimeclasses"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:node-bootstrapper",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     "certificates.k8s.io"
    ],
    "resources": [
     "certificatesigningrequests"
    ],
    "verbs": [
     "create",
     "get",
     "list",
     "watch"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:node-problem-detector",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "nodes"
    ],
    "verbs": [
     "get"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "nodes/status"
    ],
    "verbs": [
     "patch"
    ]
   },
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:node-proxier",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "endpoints",
     "services"
    ],
    "verbs": [
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "nodes"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   },
   {
    "apiGroups": [
     "discovery.k8s.io"
    ],
    "resources": [
     "endpointslices"
    ],
    "verbs": [
     "list",
     "watch"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:persistent-volume-provisioner",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "persistentvolumes"
    ],
    "verbs": [
     "create",
     "delete",
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "persistentvolumeclaims"
    ],
    "verbs": [
     "get",
     "list",
     "update",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "storage.k8s.io"
    ],
    "resources": [
     "storageclasses"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "watch"
    ]
   },
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:public-info-viewer",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "nonResourceURLs": [
     "/healthz",
     "/livez",
     "/readyz",
     "/version",
     "/version/"
    ],
    "verbs": [
     "get"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:service-account-issuer-discovery",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "nonResourceURLs": [
     "/.well-known/openid-configuration",
     "/.well-known/openid-configuration/",
     "/openid/v1/jwks",
     "/openid/v1/jwks/"
    ],
    "verbs": [
     "get"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "system:volume-scheduler",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "persistentvolumes"
    ],
    "verbs": [
     "get",
     "list",
     "patch",
     "update",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "storage.k8s.io"
    ],
    "resources": [
     "storageclasses"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "persistentvolumeclaims"
    ],
    "verbs": [
     "get",
     "list",
     "patch",
     "update",
     "watch"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRole",
  "metadata": {
   "name": "view",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults",
    "rbac.authorization.k8s.io/aggregate-to-edit": "true"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "aggregationRule": {
   "clusterRoleSelectors": [
    {
     "matchLabels": {
      "rbac.authorization.k8s.io/aggregate-to-view": "true"
     }
    }
   ]
  }
 }
];

export const DEFAULT_CLUSTER_ROLE_BINDINGS: readonly KubeObject[] = [
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "cluster-admin",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "cluster-admin"
  },
  "subjects": [
   {
    "apiGroup": "rbac.authorization.k8s.io",
    "kind": "Group",
    "name": "system:masters"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:basic-user",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:basic-user"
  },
  "subjects": [
   {
    "apiGroup": "rbac.authorization.k8s.io",
    "kind": "Group",
    "name": "system:authenticated"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:controller:attachdetach-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:controller:attachdetach-controller"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "attachdetach-controller",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:controller:certificate-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:controller:certificate-controller"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "certificate-controller",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:controller:clusterrole-aggregation-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:controller:clusterrole-aggregation-controller"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "clusterrole-aggregation-controller",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:controller:cronjob-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:controller:cronjob-controller"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "cronjob-controller",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:controller:daemon-set-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:controller:daemon-set-controller"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "daemon-set-controller",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:controller:deployment-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:controller:deployment-controller"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "deployment-controller",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:controller:disruption-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:controller:disruption-controller"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "disruption-controller",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:controller:endpoint-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:controller:endpoint-controller"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "endpoint-controller",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:controller:endpointslice-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:controller:endpointslice-controller"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "endpointslice-controller",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:controller:endpointslicemirroring-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:controller:endpointslicemirroring-controller"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "endpointslicemirroring-controller",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:controller:ephemeral-volume-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:controller:ephemeral-volume-controller"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "ephemeral-volume-controller",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:controller:expand-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:controller:expand-controller"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "expand-controller",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:controller:generic-garbage-collector",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:controller:generic-garbage-collector"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "generic-garbage-collector",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:controller:horizontal-pod-autoscaler",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:controller:horizontal-pod-autoscaler"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "horizontal-pod-autoscaler",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:controller:job-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:controller:job-controller"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "job-controller",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:controller:legacy-service-account-token-cleaner",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:controller:legacy-service-account-token-cleaner"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "legacy-service-account-token-cleaner",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:controller:namespace-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:controller:namespace-controller"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "namespace-controller",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:controller:node-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:controller:node-controller"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "node-controller",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:controller:persistent-volume-binder",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:controller:persistent-volume-binder"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "persistent-volume-binder",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:controller:pod-garbage-collector",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:controller:pod-garbage-collector"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "pod-garbage-collector",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:controller:pv-protection-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:controller:pv-protection-controller"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "pv-protection-controller",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:controller:pvc-protection-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:controller:pvc-protection-controller"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "pvc-protection-controller",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:controller:replicaset-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:controller:replicaset-controller"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "replicaset-controller",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:controller:replication-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:controller:replication-controller"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "replication-controller",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:controller:resourcequota-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:controller:resourcequota-controller"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "resourcequota-controller",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:controller:root-ca-cert-publisher",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:controller:root-ca-cert-publisher"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "root-ca-cert-publisher",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:controller:route-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:controller:route-controller"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "route-controller",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:controller:service-account-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:controller:service-account-controller"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "service-account-controller",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:controller:service-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:controller:service-controller"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "service-controller",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:controller:statefulset-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:controller:statefulset-controller"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "statefulset-controller",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:controller:ttl-after-finished-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:controller:ttl-after-finished-controller"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "ttl-after-finished-controller",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:controller:ttl-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:controller:ttl-controller"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "ttl-controller",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:controller:validatingadmissionpolicy-status-controller",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:controller:validatingadmissionpolicy-status-controller"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "validatingadmissionpolicy-status-controller",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:discovery",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:discovery"
  },
  "subjects": [
   {
    "apiGroup": "rbac.authorization.k8s.io",
    "kind": "Group",
    "name": "system:authenticated"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:kube-controller-manager",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:kube-controller-manager"
  },
  "subjects": [
   {
    "apiGroup": "rbac.authorization.k8s.io",
    "kind": "User",
    "name": "system:kube-controller-manager"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:kube-dns",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:kube-dns"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "kube-dns",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:kube-scheduler",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:kube-scheduler"
  },
  "subjects": [
   {
    "apiGroup": "rbac.authorization.k8s.io",
    "kind": "User",
    "name": "system:kube-scheduler"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:monitoring",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:monitoring"
  },
  "subjects": [
   {
    "apiGroup": "rbac.authorization.k8s.io",
    "kind": "Group",
    "name": "system:monitoring"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:node",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:node"
  }
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:node-proxier",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:node-proxier"
  },
  "subjects": [
   {
    "apiGroup": "rbac.authorization.k8s.io",
    "kind": "User",
    "name": "system:kube-proxy"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:public-info-viewer",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:public-info-viewer"
  },
  "subjects": [
   {
    "apiGroup": "rbac.authorization.k8s.io",
    "kind": "Group",
    "name": "system:authenticated"
   },
   {
    "apiGroup": "rbac.authorization.k8s.io",
    "kind": "Group",
    "name": "system:unauthenticated"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:service-account-issuer-discovery",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:service-account-issuer-discovery"
  },
  "subjects": [
   {
    "apiGroup": "rbac.authorization.k8s.io",
    "kind": "Group",
    "name": "system:serviceaccounts"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "ClusterRoleBinding",
  "metadata": {
   "name": "system:volume-scheduler",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "ClusterRole",
   "name": "system:volume-scheduler"
  },
  "subjects": [
   {
    "apiGroup": "rbac.authorization.k8s.io",
    "kind": "User",
    "name": "system:kube-scheduler"
   }
  ]
 }
];

export const DEFAULT_ROLES: readonly KubeObject[] = [
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "Role",
  "metadata": {
   "name": "system:controller:bootstrap-signer",
   "namespace": "kube-public",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "configmaps"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resourceNames": [
     "cluster-info"
    ],
    "resources": [
     "configmaps"
    ],
    "verbs": [
     "update"
    ]
   },
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "Role",
  "metadata": {
   "name": "extension-apiserver-authentication-reader",
   "namespace": "kube-system",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resourceNames": [
     "extension-apiserver-authentication"
    ],
    "resources": [
     "configmaps"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "Role",
  "metadata": {
   "name": "system::leader-locking-kube-controller-manager",
   "namespace": "kube-system",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "configmaps"
    ],
    "verbs": [
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resourceNames": [
     "kube-controller-manager"
    ],
    "resources": [
     "configmaps"
    ],
    "verbs": [
     "get",
     "update"
    ]
   },
   {
    "apiGroups": [
     "coordination.k8s.io"
    ],
    "resources": [
     "leases"
    ],
    "verbs": [
     "create",
     "get",
     "list",
     "update",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "coordination.k8s.io"
    ],
    "resources": [
     "leasecandidates"
    ],
    "verbs": [
     "create",
     "get",
     "list",
     "update",
     "watch"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "Role",
  "metadata": {
   "name": "system::leader-locking-kube-scheduler",
   "namespace": "kube-system",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "configmaps"
    ],
    "verbs": [
     "watch"
    ]
   },
   {
    "apiGroups": [
     ""
    ],
    "resourceNames": [
     "kube-scheduler"
    ],
    "resources": [
     "configmaps"
    ],
    "verbs": [
     "get",
     "update"
    ]
   },
   {
    "apiGroups": [
     "coordination.k8s.io"
    ],
    "resources": [
     "leases"
    ],
    "verbs": [
     "create",
     "get",
     "list",
     "update",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "coordination.k8s.io"
    ],
    "resources": [
     "leasecandidates"
    ],
    "verbs": [
     "create",
     "get",
     "list",
     "update",
     "watch"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "Role",
  "metadata": {
   "name": "system:controller:bootstrap-signer",
   "namespace": "kube-system",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "secrets"
    ],
    "verbs": [
     "get",
     "list",
     "watch"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "Role",
  "metadata": {
   "name": "system:controller:cloud-provider",
   "namespace": "kube-system",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "configmaps"
    ],
    "verbs": [
     "create",
     "get",
     "list",
     "watch"
    ]
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "Role",
  "metadata": {
   "name": "system:controller:token-cleaner",
   "namespace": "kube-system",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "rules": [
   {
    "apiGroups": [
     ""
    ],
    "resources": [
     "secrets"
    ],
    "verbs": [
     "delete",
     "get",
     "list",
     "watch"
    ]
   },
   {
    "apiGroups": [
     "",
     "events.k8s.io"
    ],
    "resources": [
     "events"
    ],
    "verbs": [
     "create",
     "patch",
     "update"
    ]
   }
  ]
 }
];

export const DEFAULT_ROLE_BINDINGS: readonly KubeObject[] = [
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "RoleBinding",
  "metadata": {
   "name": "system:controller:bootstrap-signer",
   "namespace": "kube-public",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "Role",
   "name": "system:controller:bootstrap-signer"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "bootstrap-signer",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "RoleBinding",
  "metadata": {
   "name": "system::extension-apiserver-authentication-reader",
   "namespace": "kube-system",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "Role",
   "name": "extension-apiserver-authentication-reader"
  },
  "subjects": [
   {
    "apiGroup": "rbac.authorization.k8s.io",
    "kind": "User",
    "name": "system:kube-controller-manager"
   },
   {
    "apiGroup": "rbac.authorization.k8s.io",
    "kind": "User",
    "name": "system:kube-scheduler"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "RoleBinding",
  "metadata": {
   "name": "system::leader-locking-kube-controller-manager",
   "namespace": "kube-system",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "Role",
   "name": "system::leader-locking-kube-controller-manager"
  },
  "subjects": [
   {
    "apiGroup": "rbac.authorization.k8s.io",
    "kind": "User",
    "name": "system:kube-controller-manager"
   },
   {
    "kind": "ServiceAccount",
    "name": "kube-controller-manager",
    "namespace": "kube-system"
   },
   {
    "kind": "ServiceAccount",
    "name": "leader-election-controller",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "RoleBinding",
  "metadata": {
   "name": "system::leader-locking-kube-scheduler",
   "namespace": "kube-system",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "Role",
   "name": "system::leader-locking-kube-scheduler"
  },
  "subjects": [
   {
    "apiGroup": "rbac.authorization.k8s.io",
    "kind": "User",
    "name": "system:kube-scheduler"
   },
   {
    "kind": "ServiceAccount",
    "name": "kube-scheduler",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "RoleBinding",
  "metadata": {
   "name": "system:controller:bootstrap-signer",
   "namespace": "kube-system",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "Role",
   "name": "system:controller:bootstrap-signer"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "bootstrap-signer",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "RoleBinding",
  "metadata": {
   "name": "system:controller:cloud-provider",
   "namespace": "kube-system",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "Role",
   "name": "system:controller:cloud-provider"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "cloud-provider",
    "namespace": "kube-system"
   }
  ]
 },
 {
  "apiVersion": "rbac.authorization.k8s.io/v1",
  "kind": "RoleBinding",
  "metadata": {
   "name": "system:controller:token-cleaner",
   "namespace": "kube-system",
   "labels": {
    "kubernetes.io/bootstrapping": "rbac-defaults"
   },
   "annotations": {
    "rbac.authorization.kubernetes.io/autoupdate": "true"
   }
  },
  "roleRef": {
   "apiGroup": "rbac.authorization.k8s.io",
   "kind": "Role",
   "name": "system:controller:token-cleaner"
  },
  "subjects": [
   {
    "kind": "ServiceAccount",
    "name": "token-cleaner",
    "namespace": "kube-system"
   }
  ]
 }
];

