/**
 * Cluster IPs (`--service-cluster-ip-range`) and node ports (`--service-node-port-range`) for
 * Services, as kube's service registry allocates them (pkg/registry/core/service/storage):
 * after validation, an address or port the client names is taken if it is in range and free,
 * one it leaves out is picked at random; the IP family fields follow the allocation. Errors are
 * kube's 422s (`failed to allocate IP ...`, `provided port is already allocated`). A dry run
 * checks ranges only and keeps nothing, with kube's dry-run placeholders (the range's base
 * address, a port past the range's end). A delete gives everything back; an update gives back
 * what the new object no longer holds once it is written.
 */
import { errors } from '../api/status-errors.ts';
import { fieldErr, goLiteral, goStringSlice, type FieldError } from '../api/field-errors.ts';
import type { KubeObject } from '../api/types.ts';
import type { Allocation, WriteContext } from '../registry/resource-store.ts';
import type { Store } from '../storage/types.ts';
import { StoreAllocator, type AllocationOwner } from './allocator.ts';
import { parseIpRange, parsePortRange, type IpRange } from './ip-range.ts';

export const DEFAULT_SERVICE_CLUSTER_IP_RANGE = '10.0.0.0/24';
export const DEFAULT_SERVICE_NODE_PORT_RANGE = '30000-32767';
/** Where allocations are kept: one key per taken item, outside every served resource's prefix. */
const IP_PREFIX = '/registry/gateway-allocations/serviceips/';
const PORT_PREFIX = '/registry/gateway-allocations/servicenodeports/';
/** An allocation older than this whose Service is gone was left by a crash between allocation and write. */
const LEAK_AGE_MS = 60_000;

type Obj = Record<string, unknown>;

export interface ServiceAllocatorsOptions {
  readonly store: Store;
  readonly clusterIpRange?: string;
  readonly nodePortRange?: string;
}

export class ServiceAllocators {
  readonly range: IpRange;
  readonly ports: { readonly base: number; readonly size: number; readonly text: string };
  private readonly ipPool: StoreAllocator;
  private readonly portPool: StoreAllocator;

  constructor(opts: ServiceAllocatorsOptions) {
    this.range = parseIpRange(opts.clusterIpRange ?? DEFAULT_SERVICE_CLUSTER_IP_RANGE);
    this.ports = parsePortRange(opts.nodePortRange ?? DEFAULT_SERVICE_NODE_PORT_RANGE);
    this.ipPool = new StoreAllocator(opts.store, IP_PREFIX, this.range.size, (off) => this.range.at(off));
    this.portPool = new StoreAllocator(opts.store, PORT_PREFIX, this.ports.size, (off) => String(this.ports.base + off - 1));
  }

  async start(): Promise<void> {
    await Promise.all([this.ipPool.start(), this.portPool.start()]);
  }

  /**
   * kube's repair controllers, once: allocations whose Service no longer holds them (a crash
   * between allocation and write) are given back when old enough not to be a create in flight.
   */
  async repair(services: readonly KubeObject[]): Promise<void> {
    const heldIps = new Set<string>();
    const heldPorts = new Set<number>();
    for (const svc of services) {
      for (const ip of clusterIPsOf(objOf(svc.spec))) heldIps.add(ip);
      for (const p of portsOf(objOf(svc.spec))) if (typeof p.nodePort === 'number') heldPorts.add(p.nodePort);
    }
    const now = Date.now();
    for (const { offset, owner } of await this.ipPool.allocated()) {
      if (!heldIps.has(this.range.at(offset)) && now - (owner.since ?? 0) > LEAK_AGE_MS) await this.ipPool.release(offset);
    }
    for (const { offset, owner } of await this.portPool.allocated()) {
      if (!heldPorts.has(this.ports.base + offset - 1) && now - (owner.since ?? 0) > LEAK_AGE_MS) await this.portPool.release(offset);
    }
  }

  /** The WriteHooks.allocate step for services. */
  async allocate(op: 'create' | 'update', svc: KubeObject, old: KubeObject | null, ctx: WriteContext): Promise<Allocation | undefined> {
    const spec = objOf(svc.spec);
    svc.spec = spec;
    const oldSpec = old ? objOf(old.spec) : undefined;
    const owner: AllocationOwner = { namespace: svc.metadata?.namespace ?? '', name: svc.metadata?.name ?? '' };
    const taken: Array<() => Promise<void>> = [];
    const revert = async () => {
      for (const undo of taken.splice(0).reverse()) await undo();
    };
    const errs: FieldError[] = [];
    try {
      await this.allocateIPs(spec, oldSpec, owner, ctx.dryRun, taken, errs);
      if (errs.length === 0) await this.allocateNodePorts(spec, oldSpec, owner, ctx.dryRun, taken, errs);
    } catch (err) {
      await revert();
      throw err;
    }
    if (errs.length > 0) {
      await revert();
      throw errors.invalid('Service', '', 'Service', owner.name, errs);
    }
    if (op === 'create' && taken.length === 0) return undefined;
    const newIps = new Set(clusterIPsOf(spec));
    const newPorts = new Set(nodePortsOf(spec));
    return {
      revert,
      commit: async () => {
        taken.length = 0;
        if (!oldSpec) return;
        // What the old object held and the new one does not goes back.
        for (const ip of clusterIPsOf(oldSpec)) if (!newIps.has(ip)) await this.releaseIP(ip);
        for (const port of nodePortsOf(oldSpec)) if (!newPorts.has(port)) await this.releasePort(port);
      },
    };
  }

  /** The WriteHooks.removed step: a deleted Service's addresses and ports go back. */
  async release(svc: KubeObject): Promise<void> {
    const spec = objOf(svc.spec);
    for (const ip of clusterIPsOf(spec)) await this.releaseIP(ip);
    for (const port of nodePortsOf(spec)) await this.releasePort(port);
  }

  private async releaseIP(ip: string): Promise<void> {
    const off = this.range.offsetOf(ip);
    if (off !== undefined) await this.ipPool.release(off);
  }

  private async releasePort(port: number): Promise<void> {
    const off = port - this.ports.base + 1;
    if (off >= 1 && off <= this.ports.size) await this.portPool.release(off);
  }

  private async allocateIPs(spec: Obj, oldSpec: Obj | undefined, owner: AllocationOwner, dryRun: boolean, taken: Array<() => Promise<void>>, errs: FieldError[]): Promise<void> {
    if (spec.type === 'ExternalName') return;
    const family = this.range.family;
    // The family fields: what a single-stack server can give.
    if (spec.ipFamilyPolicy === 'RequireDualStack' && spec.clusterIP !== 'None') {
      errs.push(fieldErr.invalid('spec.ipFamilyPolicy', 'RequireDualStack', 'this cluster is not configured for dual-stack services'));
    }
    const families = Array.isArray(spec.ipFamilies) ? (spec.ipFamilies as string[]) : [];
    families.forEach((f, i) => {
      if (f !== family && !(spec.clusterIP === 'None')) errs.push(fieldErr.invalid(`spec.ipFamilies[${i}]`, f, 'not configured on this cluster'));
    });
    if (errs.length > 0) return;
    if (spec.clusterIP === 'None') {
      // kube: a headless service without a selector is given both families, as it may hold either.
      if (spec.ipFamilyPolicy === undefined) spec.ipFamilyPolicy = spec.selector === undefined || spec.selector === null ? 'RequireDualStack' : 'SingleStack';
      if (families.length === 0) spec.ipFamilies = spec.ipFamilyPolicy === 'SingleStack' ? [family] : family === 'IPv4' ? ['IPv4', 'IPv6'] : ['IPv6', 'IPv4'];
      return;
    }
    if (spec.ipFamilyPolicy === undefined) spec.ipFamilyPolicy = 'SingleStack';
    if (families.length === 0) spec.ipFamilies = [family];
    const oldIPs = oldSpec && oldSpec.type !== 'ExternalName' ? clusterIPsOf(oldSpec) : [];
    const wanted = clusterIPsOf(spec);
    if (wanted.length > 0) {
      const ip = wanted[0]!;
      if (oldIPs.includes(ip)) return; // already held
      const off = this.range.offsetOf(ip);
      if (off === undefined) {
        errs.push(fieldErr.invalid('spec.clusterIPs', goLiteral(goStringSlice(wanted)), `failed to allocate IP ${ip}: the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${this.range.cidr}`));
        return;
      }
      if (dryRun) return;
      if (!(await this.ipPool.allocate(off, owner))) {
        errs.push(fieldErr.invalid('spec.clusterIPs', goLiteral(goStringSlice(wanted)), `failed to allocate IP ${ip}: provided IP is already allocated`));
        return;
      }
      taken.push(() => this.ipPool.release(off));
      return;
    }
    let ip: string;
    if (dryRun) ip = this.range.at(0);
    else {
      const off = await this.ipPool.allocateNext(owner);
      if (off === undefined) throw errors.internal('failed to allocate a serviceIP: range is full');
      taken.push(() => this.ipPool.release(off));
      ip = this.range.at(off);
    }
    spec.clusterIP = ip;
    spec.clusterIPs = [ip];
  }

  private async allocateNodePorts(spec: Obj, oldSpec: Obj | undefined, owner: AllocationOwner, dryRun: boolean, taken: Array<() => Promise<void>>, errs: FieldError[]): Promise<void> {
    const wantsNodePorts = spec.type === 'NodePort' || (spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts !== false);
    const ports = portsOf(spec);
    const held = new Set(oldSpec ? nodePortsOf(oldSpec) : []);
    const mine = new Set<number>();
    for (let i = 0; i < ports.length; i++) {
      const p = ports[i]!;
      const n = typeof p.nodePort === 'number' && p.nodePort !== 0 ? p.nodePort : undefined;
      if (n === undefined) {
        if (!wantsNodePorts) continue;
        if (dryRun) {
          p.nodePort = this.ports.base + this.ports.size + 1;
          continue;
        }
        const off = await this.portPool.allocateNext(owner);
        if (off === undefined) throw errors.internal('failed to allocate a nodePort: range is full');
        taken.push(() => this.portPool.release(off));
        p.nodePort = this.ports.base + off - 1;
        mine.add(p.nodePort as number);
        continue;
      }
      // The same port for another protocol of this service, or one the service already holds.
      if (held.has(n) || mine.has(n)) continue;
      const off = n - this.ports.base + 1;
      if (off < 1 || off > this.ports.size) {
        errs.push(fieldErr.invalid(`spec.ports[${i}].nodePort`, n, `provided port is not in the valid range. The range of valid ports is ${this.ports.text}`));
        continue;
      }
      if (dryRun) continue;
      if (!(await this.portPool.allocate(off, owner))) {
        errs.push(fieldErr.invalid(`spec.ports[${i}].nodePort`, n, 'provided port is already allocated'));
        continue;
      }
      mine.add(n);
      taken.push(() => this.portPool.release(off));
    }
  }
}

function objOf(v: unknown): Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {};
}

function portsOf(spec: Obj): Obj[] {
  return Array.isArray(spec.ports) ? (spec.ports.filter((p) => p !== null && typeof p === 'object') as Obj[]) : [];
}

function clusterIPsOf(spec: Obj): string[] {
  if (spec.type === 'ExternalName') return [];
  const ips = Array.isArray(spec.clusterIPs) ? (spec.clusterIPs as unknown[]) : typeof spec.clusterIP === 'string' && spec.clusterIP !== '' ? [spec.clusterIP] : [];
  return ips.filter((ip): ip is string => typeof ip === 'string' && ip !== '' && ip !== 'None');
}

function nodePortsOf(spec: Obj): number[] {
  return portsOf(spec)
    .map((p) => p.nodePort)
    .filter((n): n is number => typeof n === 'number' && n !== 0);
}
