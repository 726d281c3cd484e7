//! Declarations: specifiers and declarators to types, struct/union/enum definitions,
//! variables with their initializers, function definitions and kernel rules.

use std::collections::HashMap;
use std::sync::Arc;

use super::super::ast::{self, DeclSpecifierKind, DeclaratorKind, StorageClass, TypeSpecifier};
use super::super::source::Span;
use super::super::tir::{
    self, AccessQualifier, FuncId, GlobalId, Init, KernelInfo, KernelParamInfo, LocalId,
};
use super::super::types::{
    AddressSpace, FunctionType, ImageKind, QualType, Qualifiers, Record, Scalar, Type,
};
use super::expr::VectorForm;
use super::record;
use super::{Analyzer, FunctionState, Symbol, Tag};

/// What declaration specifiers said, once combined.
pub(super) struct Specs {
    pub ty: QualType,
    pub storage: Option<(StorageClass, Span)>,
    pub kernel: bool,
    pub attributes: Vec<ast::Attribute>,
    pub access: Option<AccessQualifier>,
}

/// A declarator applied to its base type.
pub(super) struct Declared {
    pub name: Option<(Arc<str>, Span)>,
    pub ty: QualType,
}

fn address_space(space: ast::AddressSpace) -> AddressSpace {
    match space {
        ast::AddressSpace::Global => AddressSpace::Global,
        ast::AddressSpace::Local => AddressSpace::Local,
        ast::AddressSpace::Constant => AddressSpace::Constant,
        ast::AddressSpace::Private => AddressSpace::Private,
    }
}

/// The types OpenCL C names without a keyword (6.1): unsigned short names, vectors,
/// images, samplers, events.
fn builtin_type_name(name: &str) -> Option<Type> {
    if let Some(s) = Scalar::from_name(name) {
        return Some(Type::Scalar(s));
    }
    if let Some(v) = Type::vector_from_name(name) {
        return Some(v);
    }
    Some(match name {
        "image1d_t" => Type::Image(ImageKind::Image1d),
        "image1d_array_t" => Type::Image(ImageKind::Image1dArray),
        "image1d_buffer_t" => Type::Image(ImageKind::Image1dBuffer),
        "image2d_t" => Type::Image(ImageKind::Image2d),
        "image2d_array_t" => Type::Image(ImageKind::Image2dArray),
        "image3d_t" => Type::Image(ImageKind::Image3d),
        "sampler_t" => Type::Sampler,
        "event_t" => Type::Event,
        _ => return None,
    })
}

impl Analyzer<'_> {
    /// Combines declaration specifiers into a base type and the rest.
    pub(super) fn specifiers(&mut self, specs: &ast::DeclSpecifiers) -> Option<Specs> {
        let mut storage = None;
        let mut kernel = false;
        let mut attributes = Vec::new();
        let mut access = None;
        let mut quals = Qualifiers::default();
        let mut space: Option<(AddressSpace, Span)> = None;
        let mut words: Vec<(&TypeSpecifier, Span)> = Vec::new();
        for item in &specs.items {
            match &item.kind {
                DeclSpecifierKind::Storage(s) => {
                    if storage.is_some() {
                        self.error(
                            item.span,
                            "cannot combine with previous storage class specifier",
                        );
                    }
                    storage = Some((*s, item.span));
                }
                DeclSpecifierKind::Qualifier(q) => match q {
                    ast::Qualifier::Const => quals.is_const = true,
                    ast::Qualifier::Volatile => quals.is_volatile = true,
                    ast::Qualifier::Restrict => quals.is_restrict = true,
                    ast::Qualifier::AddressSpace(s) => {
                        let s = address_space(*s);
                        if space.is_some_and(|(old, _)| old != s) {
                            self.error(item.span, "multiple address spaces specified for type");
                        }
                        space = Some((s, item.span));
                    }
                    ast::Qualifier::Access(a) => {
                        access = Some(match a {
                            ast::AccessQualifier::ReadOnly => AccessQualifier::ReadOnly,
                            ast::AccessQualifier::WriteOnly => AccessQualifier::WriteOnly,
                            ast::AccessQualifier::ReadWrite => AccessQualifier::ReadWrite,
                        })
                    }
                },
                DeclSpecifierKind::Function(ast::FunctionSpecifier::Kernel) => kernel = true,
                DeclSpecifierKind::Function(ast::FunctionSpecifier::Inline) => {}
                DeclSpecifierKind::Type(t) => words.push((t, item.span)),
                DeclSpecifierKind::Attribute(a) => attributes.push(a.clone()),
            }
        }
        let ty = self.type_from_specifiers(&words, specs.span)?;
        if matches!(
            storage,
            Some((StorageClass::Auto | StorageClass::Register, _))
        ) {
            let (s, span) = storage.unwrap_or((StorageClass::Auto, specs.span));
            let word = if s == StorageClass::Auto {
                "auto"
            } else {
                "register"
            };
            self.error(
                span,
                format!("OpenCL C does not support the '{word}' storage class specifier"),
            );
        }
        let space = space.map_or(AddressSpace::Private, |(s, _)| s);
        Some(Specs {
            ty: QualType { ty, quals, space },
            storage,
            kernel,
            attributes,
            access,
        })
    }

    /// C99 6.7.2's combinations of type specifiers, with OpenCL's types.
    fn type_from_specifiers(
        &mut self,
        words: &[(&TypeSpecifier, Span)],
        span: Span,
    ) -> Option<Type> {
        let count = |k: fn(&TypeSpecifier) -> bool| words.iter().filter(|(w, _)| k(w)).count();
        let signed = count(|w| matches!(w, TypeSpecifier::Signed));
        let unsigned = count(|w| matches!(w, TypeSpecifier::Unsigned));
        let longs = count(|w| matches!(w, TypeSpecifier::Long));
        let others: Vec<&(&TypeSpecifier, Span)> = words
            .iter()
            .filter(|(w, _)| {
                !matches!(
                    w,
                    TypeSpecifier::Signed
                        | TypeSpecifier::Unsigned
                        | TypeSpecifier::Long
                        | TypeSpecifier::Int
                )
            })
            .collect();
        let ints = count(|w| matches!(w, TypeSpecifier::Int));
        if signed + unsigned > 1 || (signed > 0 && unsigned > 0) || ints > 1 {
            self.error(span, "invalid combination of type specifiers");
            return None;
        }
        if longs > 1 {
            self.error(span, "'long long' is a reserved type in OpenCL C");
            return None;
        }
        if others.len() > 1 {
            self.error(others[1].1, "cannot combine with previous type specifier");
            return None;
        }
        let sign = |s: Scalar| {
            if unsigned > 0 {
                s.unsigned_counterpart()
            } else {
                s
            }
        };
        let Some(&&(word, word_span)) = others.first() else {
            if words.is_empty() {
                self.error(
                    span,
                    "type specifier missing (OpenCL C does not allow implicit 'int')",
                );
                return None;
            }
            return Some(Type::Scalar(sign(if longs == 1 {
                Scalar::Long
            } else {
                Scalar::Int
            })));
        };
        let integer_modifiers = signed + unsigned + longs + ints;
        let plain = |t: Type, this: &mut Self| {
            if integer_modifiers > 0 {
                this.error(word_span, "invalid combination of type specifiers");
                None
            } else {
                Some(t)
            }
        };
        match word {
            TypeSpecifier::Char if longs == 0 && ints == 0 => {
                Some(Type::Scalar(sign(Scalar::Char)))
            }
            TypeSpecifier::Short if longs == 0 => Some(Type::Scalar(sign(Scalar::Short))),
            TypeSpecifier::Void => plain(Type::Void, self),
            TypeSpecifier::Bool => plain(Type::Scalar(Scalar::Bool), self),
            TypeSpecifier::Float => plain(Type::Scalar(Scalar::Float), self),
            TypeSpecifier::Half => plain(Type::Scalar(Scalar::Half), self),
            TypeSpecifier::Double => {
                if longs > 0 {
                    self.error(word_span, "'long double' is not supported in OpenCL C");
                    return None;
                }
                if !self.extensions.fp64 {
                    self.error(
                        word_span,
                        "use of type 'double' requires cl_khr_fp64 extension to be enabled",
                    );
                    return None;
                }
                plain(Type::Scalar(Scalar::Double), self)
            }
            TypeSpecifier::TypeName(name) => {
                let t = match self.lookup(name) {
                    Some(Symbol::Typedef(q)) => q.ty.clone(),
                    _ => match builtin_type_name(name) {
                        Some(t) => t,
                        None => {
                            self.error(word_span, format!("unknown type name '{name}'"));
                            return None;
                        }
                    },
                };
                if t.element() == Some(Scalar::Double) && !self.extensions.fp64 {
                    self.error(
                        word_span,
                        format!(
                            "use of type '{name}' requires cl_khr_fp64 extension to be enabled"
                        ),
                    );
                    return None;
                }
                plain(t, self)
            }
            TypeSpecifier::Struct(s) => {
                let t = self.record_specifier(s)?;
                plain(t, self)
            }
            TypeSpecifier::Enum(e) => {
                let t = self.enum_specifier(e)?;
                plain(t, self)
            }
            TypeSpecifier::Typeof(operand) => {
                let t = self.typeof_type(operand)?;
                plain(t, self)
            }
            _ => {
                self.error(word_span, "invalid combination of type specifiers");
                None
            }
        }
    }

    /// A struct or union specifier: its definition (laid out now) or a reference by tag.
    fn record_specifier(&mut self, s: &ast::StructSpecifier) -> Option<Type> {
        let is_union = s.kind == ast::StructKind::Union;
        let tag_name = s.tag.as_ref().map(|t| Arc::clone(&t.name));
        let Some(body) = &s.body else {
            let name = tag_name?;
            return match self.lookup_tag(&name) {
                Some(Tag::Record(r)) => Some(Type::Record(Arc::clone(r))),
                Some(Tag::Enum(_)) => {
                    self.error(
                        s.span,
                        format!(
                            "use of '{name}' with tag type that does not match previous declaration"
                        ),
                    );
                    None
                }
                None => {
                    // A forward declaration: an incomplete record, usable behind pointers.
                    let mut r =
                        Record::layout(Some(Arc::clone(&name)), is_union, Vec::new(), false, 1);
                    r.incomplete = true;
                    let r = Arc::new(r);
                    self.scopes
                        .last_mut()?
                        .tags
                        .insert(name, Tag::Record(Arc::clone(&r)));
                    Some(Type::Record(r))
                }
            };
        };
        let mut members: Vec<(Arc<str>, QualType)> = Vec::new();
        // Every member name the record makes visible, those of anonymous members included.
        let mut visible: Vec<Arc<str>> = Vec::new();
        for item in body {
            let ast::StructItem::Field(field) = item else {
                continue;
            };
            let Some(specs) = self.specifiers(&field.specifiers) else {
                continue;
            };
            if field.declarators.is_empty() {
                // C11 6.7.2.1p13: an untagged struct or union with no declarator is an
                // anonymous member; its members are reached as the record's own.
                if !is_anonymous_record(&field.specifiers) {
                    self.error(field.span, "declaration does not declare anything");
                    continue;
                }
                let names = record::visible_names(&Arc::from(record::ANONYMOUS), &specs.ty.ty);
                if let Some(dup) = names.iter().find(|n| visible.contains(n)) {
                    self.error(field.span, format!("duplicate member '{dup}'"));
                    continue;
                }
                visible.extend(names);
                members.push((Arc::from(record::ANONYMOUS), specs.ty.clone()));
                continue;
            }
            for d in &field.declarators {
                if d.bit_width.is_some() {
                    self.error(d.span, "bit-fields are not supported in OpenCL C");
                    continue;
                }
                let Some(declared) = self.declarator(specs.ty.clone(), &d.declarator) else {
                    continue;
                };
                let Some((name, span)) = declared.name else {
                    continue;
                };
                if visible.contains(&name) {
                    self.error(span, format!("duplicate member '{name}'"));
                    continue;
                }
                if !self.is_complete_object(&declared.ty.ty) {
                    self.error(
                        span,
                        format!("field has incomplete type '{}'", declared.ty.ty),
                    );
                    continue;
                }
                if declared.ty.space != AddressSpace::Private {
                    self.error(span, "field may not be qualified with an address space");
                }
                // 6.9.b (images) and 6.12.14.1 (samplers): they are no field types.
                if let Some(name) = opaque_type_name(&declared.ty.ty) {
                    self.error(
                        span,
                        format!(
                            "the '{name}' type cannot be used to declare a structure or union field"
                        ),
                    );
                    continue;
                }
                visible.push(Arc::clone(&name));
                members.push((name, declared.ty));
            }
        }
        let packed = s
            .attributes
            .iter()
            .any(|a| &*a.name.name == "packed" || &*a.name.name == "__packed__");
        let mut align = 1;
        for a in s
            .attributes
            .iter()
            .filter(|a| &*a.name.name == "aligned" || &*a.name.name == "__aligned__")
        {
            align = align.max(self.aligned_attribute(a));
        }
        let record = Arc::new(Record::layout(
            tag_name.clone(),
            is_union,
            members,
            packed,
            align,
        ));
        if let Some(name) = tag_name {
            let redefined = matches!(self.scopes.last()?.tags.get(&name), Some(Tag::Record(old)) if !old.incomplete);
            if redefined {
                self.error(s.span, format!("redefinition of '{name}'"));
            }
            self.scopes
                .last_mut()?
                .tags
                .insert(name, Tag::Record(Arc::clone(&record)));
        }
        Some(Type::Record(record))
    }

    /// `aligned` or `aligned(N)`: N must be a power of two (the largest alignment, 128,
    /// when absent).
    fn aligned_attribute(&mut self, a: &ast::Attribute) -> u64 {
        match a.args.as_deref() {
            None | Some([]) => 128,
            Some([ast::AttributeArg::Expr(e)]) => match self.integer_constant(e) {
                Some(n) if n > 0 && (n as u64).is_power_of_two() => n as u64,
                Some(_) => {
                    self.error(e.span, "requested alignment is not a power of 2");
                    1
                }
                None => 1,
            },
            Some(_) => {
                self.error(a.span, "'aligned' attribute takes one argument");
                1
            }
        }
    }

    fn enum_specifier(&mut self, e: &ast::EnumSpecifier) -> Option<Type> {
        let tag_name = e.tag.as_ref().map(|t| Arc::clone(&t.name));
        let Some(enumerators) = &e.enumerators else {
            let name = tag_name?;
            return match self.lookup_tag(&name) {
                Some(Tag::Enum(n)) => Some(Type::Enum(n.clone(), Scalar::UInt)),
                _ => {
                    self.error(
                        e.span,
                        format!("ISO C forbids forward references to 'enum' types ('{name}')"),
                    );
                    None
                }
            };
        };
        let mut next: i64 = 0;
        let mut values = Vec::with_capacity(enumerators.len());
        for en in enumerators {
            if let Some(v) = &en.value
                && let Some(value) = self.integer_constant(v)
            {
                next = value;
            }
            // An enumerator's scope begins right after it (C99 6.2.1p7): later values
            // may use it.
            self.declare(
                &en.name.name,
                Symbol::EnumConstant(next, Scalar::Int),
                en.name.span,
            );
            values.push((Arc::clone(&en.name.name), next, en.name.span));
            next = next.wrapping_add(1);
        }
        // The enumeration's type: int if every value fits, else uint (C: an integer type
        // able to hold them all).
        let fits_int = values.iter().all(|(_, v, _)| i32::try_from(*v).is_ok());
        let scalar = if fits_int {
            Scalar::Int
        } else if values.iter().all(|(_, v, _)| u32::try_from(*v).is_ok()) {
            Scalar::UInt
        } else {
            Scalar::Long
        };
        if let Some(name) = &tag_name {
            self.scopes
                .last_mut()?
                .tags
                .insert(Arc::clone(name), Tag::Enum(tag_name.clone()));
        }
        Some(Type::Enum(tag_name, scalar))
    }

    /// Applies a declarator to its base type (C's inside-out reading: the outermost
    /// declarator node applies to the base type first).
    pub(super) fn declarator(&mut self, base: QualType, d: &ast::Declarator) -> Option<Declared> {
        let mut ty = base;
        let mut node = d;
        loop {
            match &node.kind {
                DeclaratorKind::Abstract => return Some(Declared { name: None, ty }),
                DeclaratorKind::Ident(name) => {
                    return Some(Declared {
                        name: Some((Arc::clone(name), node.span)),
                        ty,
                    });
                }
                DeclaratorKind::Pointer { qualifiers, inner } => {
                    // 6.9.b (images) and 6.12.14.1 (samplers): no pointers to them.
                    if let Some(name) = opaque_type_name(&ty.ty) {
                        self.error(
                            node.span,
                            format!("pointer to type '{name}' is invalid in OpenCL"),
                        );
                        return None;
                    }
                    let mut p = QualType::new(Type::Pointer(Box::new(ty)));
                    for q in qualifiers {
                        match &q.kind {
                            DeclSpecifierKind::Qualifier(ast::Qualifier::Const) => {
                                p.quals.is_const = true
                            }
                            DeclSpecifierKind::Qualifier(ast::Qualifier::Volatile) => {
                                p.quals.is_volatile = true
                            }
                            DeclSpecifierKind::Qualifier(ast::Qualifier::Restrict) => {
                                p.quals.is_restrict = true
                            }
                            DeclSpecifierKind::Qualifier(ast::Qualifier::AddressSpace(s)) => {
                                p.space = address_space(*s)
                            }
                            _ => {}
                        }
                    }
                    ty = p;
                    node = inner;
                }
                DeclaratorKind::Array { inner, size, .. } => {
                    // 6.9.b (images) and 6.12.14.1 (samplers): no arrays of them.
                    if let Some(name) = opaque_type_name(&ty.ty) {
                        self.error(
                            node.span,
                            format!("array of '{name}' type is invalid in OpenCL"),
                        );
                        return None;
                    }
                    if matches!(ty.ty, Type::Void | Type::Function(_))
                        || !self.is_complete_object(&ty.ty)
                    {
                        self.error(
                            node.span,
                            format!("array has incomplete element type '{}'", ty.ty),
                        );
                        return None;
                    }
                    let length = match size {
                        None => None,
                        Some(e) => match self.integer_constant(e) {
                            Some(n) if n > 0 => Some(n as u64),
                            Some(_) => {
                                self.error(e.span, "array size must be greater than zero");
                                return None;
                            }
                            None => {
                                self.error(
                                    e.span,
                                    "variable length arrays are not supported in OpenCL C",
                                );
                                return None;
                            }
                        },
                    };
                    let (quals, space) = (ty.quals, ty.space);
                    ty = QualType {
                        ty: Type::Array(Box::new(ty), length),
                        quals,
                        space,
                    };
                    node = inner;
                }
                DeclaratorKind::Function {
                    inner,
                    params,
                    variadic,
                } => {
                    if *variadic {
                        self.error(
                            node.span,
                            "variadic functions are not supported in OpenCL C",
                        );
                    }
                    if matches!(ty.ty, Type::Array(..) | Type::Function(_)) {
                        self.error(node.span, "function cannot return an array or a function");
                        return None;
                    }
                    let mut param_types = Vec::new();
                    for p in params {
                        let specs = self.specifiers(&p.specifiers)?;
                        let declared = self.declarator(specs.ty.clone(), &p.declarator)?;
                        if declared.ty.ty.is_void() && declared.name.is_none() && params.len() == 1
                        {
                            break;
                        }
                        param_types.push(adjust_parameter(declared.ty));
                    }
                    let f = FunctionType {
                        ret: ty,
                        params: param_types,
                        variadic: false,
                    };
                    ty = QualType::new(Type::Function(Box::new(f)));
                    node = inner;
                }
            }
        }
    }

    /// Whether a value of this type can be declared (complete, not void).
    pub(super) fn is_complete_object(&self, ty: &Type) -> bool {
        match ty {
            Type::Void | Type::Function(_) => false,
            Type::Record(r) => !r.incomplete,
            Type::Array(_, None) => false,
            _ => true,
        }
    }

    /// A declaration at file scope: typedefs, function prototypes, `__constant` variables.
    pub(super) fn file_scope_declaration(&mut self, d: &ast::Declaration) {
        let Some(specs) = self.specifiers(&d.specifiers) else {
            return;
        };
        for init in &d.declarators {
            let Some(declared) = self.declarator(specs.ty.clone(), &init.declarator) else {
                continue;
            };
            let Some((name, span)) = declared.name.clone() else {
                continue;
            };
            if matches!(specs.storage, Some((StorageClass::Typedef, _))) {
                self.declare(&name, Symbol::Typedef(declared.ty), span);
                continue;
            }
            if matches!(specs.storage, Some((StorageClass::Static, _))) {
                self.internal_names.insert(Arc::clone(&name));
            }
            if let Type::Function(f) = &declared.ty.ty {
                let overloadable = overloadable(&specs, &init.declarator);
                self.declare_function(&name, f, specs.kernel, overloadable, span);
                continue;
            }
            let is_extern = matches!(specs.storage, Some((StorageClass::Extern, _)));
            if is_extern && init.init.is_none() {
                self.extern_variable(name, declared.ty, span);
            } else {
                self.global_variable(name, declared.ty, init.init.as_ref(), span);
            }
        }
    }

    /// A program-scope `__constant` variable's address space, with const samplers moved to
    /// constant memory: "Samplers can also be declared as global constants in the program
    /// source using `const sampler_t <sampler name> = <value>`" (6.12.14.1). `None` (after
    /// the error) when the variable is not in constant memory.
    fn program_scope_type(&mut self, ty: QualType, span: Span) -> Option<QualType> {
        let mut ty = ty;
        if ty.ty == Type::Sampler && ty.quals.is_const && ty.space == AddressSpace::Private {
            ty.space = AddressSpace::Constant;
        }
        if ty.space != AddressSpace::Constant {
            self.error(
                span,
                "program scope variable must reside in constant address space",
            );
            return None;
        }
        Some(ty)
    }

    /// `extern constant T name;`: a declaration whose definition (with its initializer)
    /// comes later in this program or from another object of the link (6.8: "The extern
    /// storage-class specifier can only be used for ... global variables declared in program
    /// scope"). Uses before the definition name the same storage. Its type may still be
    /// incomplete (`extern constant struct s v;`) until the definition.
    fn extern_variable(&mut self, name: Arc<str>, ty: QualType, span: Span) -> Option<GlobalId> {
        let ty = self.program_scope_type(ty, span)?;
        if let Some(id) = self.existing_global(&name, &ty, span) {
            return Some(id);
        }
        let id = GlobalId(self.program.globals.len() as u32);
        self.program.globals.push(tir::Global {
            name: Arc::clone(&name),
            init: vec![0; ty.ty.size() as usize],
            ty,
            defined: false,
            span,
        });
        self.declare(&name, Symbol::Global(id), span);
        Some(id)
    }

    /// The program-scope variable `name` declared before (by an `extern` declaration or a
    /// definition), after checking that `ty` agrees with it ("conflicting types" as C 6.7p4).
    /// Records compare by their members, so the same struct declared in two objects of a
    /// link agrees.
    fn existing_global(&mut self, name: &Arc<str>, ty: &QualType, span: Span) -> Option<GlobalId> {
        let Some(Symbol::Global(id)) = self.scopes[0].names.get(name).cloned() else {
            return None;
        };
        let old = &self.program.globals[id.0 as usize].ty;
        let agrees = |a: &Type, b: &Type| match (a, b) {
            // An incomplete declaration agrees with the completed record of the same name.
            (Type::Record(x), Type::Record(y)) if x.incomplete || y.incomplete => x.name == y.name,
            // `extern constant int a[];` agrees with `constant int a[4] = ...`.
            (Type::Array(x, None), Type::Array(y, _))
            | (Type::Array(x, _), Type::Array(y, None)) => x == y,
            _ => a == b,
        };
        if !agrees(&old.ty, &ty.ty) || old.quals.is_volatile != ty.quals.is_volatile {
            self.error(span, format!("conflicting types for '{name}'"));
        }
        Some(id)
    }

    /// A program-scope (or kernel-scope) `__constant` variable: "variables at program scope
    /// must be declared in the __constant address space" and initialized with constants.
    pub(super) fn global_variable(
        &mut self,
        name: Arc<str>,
        ty: QualType,
        init: Option<&ast::Initializer>,
        span: Span,
    ) -> Option<GlobalId> {
        let mut ty = self.program_scope_type(ty, span)?;
        let Some(init) = init else {
            self.error(
                span,
                "variable in constant address space must be initialized",
            );
            return None;
        };
        let value = self.initializer(&mut ty, init)?;
        let bytes = self.constant_bytes(&ty.ty, &value, init.span)?;
        // A definition after an `extern` declaration fills in the declared variable (in a
        // kernel, a `__constant` variable is a new one that hides it).
        if self.current.is_none()
            && let Some(id) = self.existing_global(&name, &ty, span)
        {
            let global = &mut self.program.globals[id.0 as usize];
            if global.defined {
                self.error(span, format!("redefinition of '{name}'"));
                return None;
            }
            global.ty = ty;
            global.init = bytes;
            global.defined = true;
            global.span = span;
            return Some(id);
        }
        let id = GlobalId(self.program.globals.len() as u32);
        self.program.globals.push(tir::Global {
            name: Arc::clone(&name),
            ty,
            init: bytes,
            defined: true,
            span,
        });
        self.declare(&name, Symbol::Global(id), span);
        Some(id)
    }

    /// Declares (or re-declares) a function, returning its id.
    fn declare_function(
        &mut self,
        name: &Arc<str>,
        f: &FunctionType,
        kernel: bool,
        overloadable: bool,
        span: Span,
    ) -> FuncId {
        if overloadable && super::builtin::is_builtin(name) {
            return self.declare_builtin_overload(name, f, kernel, span);
        }
        if let Some(Symbol::Function(id)) = self.scopes[0].names.get(name) {
            let id = *id;
            let old = &self.program.functions[id.0 as usize];
            let same = old.ret == f.ret.ty && old.locals.len() >= old.params as usize;
            if !same {
                self.error(span, format!("conflicting types for '{name}'"));
            }
            return id;
        }
        if super::builtin::is_builtin(name) {
            self.error(
                span,
                format!("'{name}' is an OpenCL C builtin function and cannot be redeclared"),
            );
        }
        let id = self.new_function(name, f, kernel, span);
        self.scopes[0]
            .names
            .insert(Arc::clone(name), Symbol::Function(id));
        id
    }

    /// An `__attribute__((overloadable))` function named like a builtin: one more overload
    /// of the name, as in clang (opencl-c.h declares the builtins overloadable). A
    /// declaration with the parameter types of an earlier one is that function again.
    fn declare_builtin_overload(
        &mut self,
        name: &Arc<str>,
        f: &FunctionType,
        kernel: bool,
        span: Span,
    ) -> FuncId {
        let earlier = self.builtin_overloads.get(name).and_then(|ids| {
            ids.iter().copied().find(|id| {
                let old = &self.program.functions[id.0 as usize];
                old.params as usize == f.params.len()
                    && old.locals[..f.params.len()]
                        .iter()
                        .zip(&f.params)
                        .all(|(l, p)| l.ty.ty == p.ty)
            })
        });
        if let Some(id) = earlier {
            if self.program.functions[id.0 as usize].ret != f.ret.ty {
                self.error(span, format!("conflicting types for '{name}'"));
            }
            return id;
        }
        let id = self.new_function(name, f, kernel, span);
        self.builtin_overloads
            .entry(Arc::clone(name))
            .or_default()
            .push(id);
        id
    }

    /// A new function of the program, not yet in any scope.
    fn new_function(
        &mut self,
        name: &Arc<str>,
        f: &FunctionType,
        kernel: bool,
        span: Span,
    ) -> FuncId {
        let id = FuncId(self.program.functions.len() as u32);
        let locals = f
            .params
            .iter()
            .map(|p| tir::Local {
                name: "".into(),
                ty: p.clone(),
                span,
            })
            .collect::<Vec<_>>();
        self.program.functions.push(tir::Function {
            name: Arc::clone(name),
            params: f.params.len() as u32,
            ret: f.ret.ty.clone(),
            locals,
            body: None,
            kernel: kernel.then(KernelInfo::default),
            callees: Vec::new(),
            labels: 0,
            span,
        });
        id
    }

    /// A function definition.
    pub(super) fn function_definition(&mut self, def: &ast::FunctionDef) {
        let Some(specs) = self.specifiers(&def.specifiers) else {
            return;
        };
        let Some(declared) = self.declarator(specs.ty.clone(), &def.declarator) else {
            return;
        };
        let (Some((name, name_span)), Type::Function(f)) = (declared.name.clone(), &declared.ty.ty)
        else {
            self.error(def.span, "expected a function declarator");
            return;
        };
        let f = (**f).clone();
        if let Some((StorageClass::Extern | StorageClass::Typedef, span)) = specs.storage {
            self.error(span, "invalid storage class for a function definition");
        }
        if matches!(specs.storage, Some((StorageClass::Static, _))) {
            self.internal_names.insert(Arc::clone(&name));
        }
        let overloadable = overloadable(&specs, &def.declarator);
        let id = self.declare_function(&name, &f, specs.kernel, overloadable, name_span);
        if self.program.functions[id.0 as usize].body.is_some() {
            self.error(name_span, format!("redefinition of '{name}'"));
            return;
        }
        let kernel = specs
            .kernel
            .then(|| self.kernel_info(&specs, &f, def, name_span));
        let param_decls = def.declarator.function_params().unwrap_or(&[]);
        self.current = Some(FunctionState {
            locals: Vec::new(),
            ret: f.ret.ty.clone(),
            is_kernel: specs.kernel,
            labels: Default::default(),
            label_count: 0,
            loop_depth: 0,
            switches: Vec::new(),
            callees: Vec::new(),
            depth: 0,
            image_access: HashMap::new(),
        });
        self.push_scope();
        for (i, ty) in f.params.iter().enumerate() {
            let decl = param_decls.get(i);
            let (pname, pspan) = decl
                .and_then(|p| p.declarator.name().map(|(n, s)| (Arc::clone(n), s)))
                .unwrap_or_else(|| ("".into(), decl.map_or(name_span, |p| p.span)));
            if let Some(d) = decl {
                self.check_parameter(ty, specs.kernel, d.span);
                if specs.kernel && matches!(ty.ty, Type::Scalar(_)) {
                    self.check_kernel_typedef_parameter(&d.specifiers, d.span);
                }
            }
            let local = self.new_local(Arc::clone(&pname), ty.clone(), pspan);
            if let (Some(d), Type::Image(_)) = (decl, &ty.ty) {
                self.image_parameter(local, ty, d);
            }
            if !pname.is_empty() {
                self.declare(&pname, Symbol::Local(local), pspan);
            }
        }
        let mut body = self.function_body(&def.body);
        self.pop_scope();
        let mut state = self.current.take().expect("set above");
        super::stmt_expr::lift(&mut body, &mut state.locals);
        for (label, (_, placed, used)) in &state.labels {
            if placed.is_none() {
                self.error(*used, format!("use of undeclared label '{label}'"));
            }
        }
        let func = &mut self.program.functions[id.0 as usize];
        func.locals = state.locals;
        func.body = Some(body);
        func.kernel = kernel;
        func.callees = state.callees;
        func.labels = state.label_count;
        func.span = name_span;
        let _ = state.is_kernel;
    }

    /// 6.9.k: a kernel parameter cannot have the built-in scalar types `size_t`,
    /// `ptrdiff_t`, `intptr_t` or `uintptr_t`, whose size may differ between host and device.
    /// They are typedefs here, so the check looks at the spelled type name.
    fn check_kernel_typedef_parameter(&mut self, specifiers: &ast::DeclSpecifiers, span: Span) {
        for item in &specifiers.items {
            if let DeclSpecifierKind::Type(TypeSpecifier::TypeName(name)) = &item.kind
                && matches!(&**name, "size_t" | "ptrdiff_t" | "intptr_t" | "uintptr_t")
                && matches!(self.lookup(name), Some(Symbol::Typedef(_)))
            {
                self.error(
                    span,
                    format!("'{name}' cannot be used as the type of a kernel parameter"),
                );
            }
        }
    }

    /// The rules for parameters: OpenCL 1.2 6.9.
    fn check_parameter(&mut self, ty: &QualType, kernel: bool, span: Span) {
        if let Type::Pointer(pointee) = &ty.ty {
            if kernel && pointee.space == AddressSpace::Private {
                self.error(span, "pointer arguments to kernel functions must reside in '__global', '__constant', or '__local' address space");
            }
            if kernel && pointee.ty.is_pointer() {
                self.error(
                    span,
                    "kernel parameter cannot be declared as a pointer to a pointer",
                );
            }
        } else if ty.space != AddressSpace::Private {
            self.error(span, "parameter may not be qualified with an address space");
        }
        if kernel {
            match &ty.ty {
                Type::Scalar(Scalar::Bool) => self.error(
                    span,
                    "'bool' cannot be used as the type of a kernel parameter",
                ),
                Type::Scalar(Scalar::Half) if !self.extensions.fp16 => self.error(
                    span,
                    "'half' cannot be used as the type of a kernel parameter",
                ),
                Type::Event => self.error(
                    span,
                    "'event_t' cannot be used as the type of a kernel parameter",
                ),
                _ => {}
            }
        }
        if matches!(ty.ty, Type::Scalar(Scalar::Half)) && !self.extensions.fp16 {
            self.error(
                span,
                "declaring function parameter of type 'half' is not allowed; did you forget * ?",
            );
        }
    }

    /// A kernel's attributes and argument information.
    fn kernel_info(
        &mut self,
        specs: &Specs,
        f: &FunctionType,
        def: &ast::FunctionDef,
        span: Span,
    ) -> KernelInfo {
        if !f.ret.ty.is_void() {
            self.error(span, "kernel must have void return type");
        }
        let mut info = KernelInfo::default();
        let mut texts = Vec::new();
        let mut attributes = specs.attributes.clone();
        attributes.extend(def.declarator.attributes.iter().cloned());
        for a in &attributes {
            let triple = |this: &mut Self| -> Option<[u64; 3]> {
                let args = a.args.as_deref().unwrap_or(&[]);
                if args.len() != 3 {
                    this.error(
                        a.span,
                        format!("'{}' attribute requires exactly 3 arguments", a.name.name),
                    );
                    return None;
                }
                let mut v = [0u64; 3];
                for (slot, arg) in v.iter_mut().zip(args) {
                    let ast::AttributeArg::Expr(e) = arg else {
                        return None;
                    };
                    match this.integer_constant(e) {
                        Some(n) if n > 0 => *slot = n as u64,
                        _ => {
                            this.error(
                                e.span,
                                format!(
                                    "'{}' attribute requires positive integer constants",
                                    a.name.name
                                ),
                            );
                            return None;
                        }
                    }
                }
                Some(v)
            };
            match &*a.name.name {
                "reqd_work_group_size" => info.reqd_work_group_size = triple(self),
                "work_group_size_hint" => info.work_group_size_hint = triple(self),
                "vec_type_hint" => {
                    if let Some([ast::AttributeArg::Type(t)]) = a.args.as_deref() {
                        info.vec_type_hint = self.type_name(t).map(|q| q.ty);
                    }
                }
                _ => {}
            }
            texts.push(a.text.clone());
        }
        info.attributes = texts.join(" ");
        let decls = def.declarator.function_params().unwrap_or(&[]);
        for (ty, decl) in f.params.iter().zip(decls) {
            let specs = self.specifiers(&decl.specifiers);
            let name = decl
                .declarator
                .name()
                .map_or_else(|| Arc::from(""), |(n, _)| Arc::clone(n));
            let (is_const, is_volatile, is_restrict) = match &ty.ty {
                Type::Pointer(p) => (p.quals.is_const, p.quals.is_volatile, ty.quals.is_restrict),
                _ => (false, false, false),
            };
            info.params.push(KernelParamInfo {
                name,
                type_name: arg_type_name(ty),
                access: specs.and_then(|s| s.access),
                is_const,
                is_restrict,
                is_volatile,
            });
        }
        info
    }

    /// Records an image parameter's access qualifier: `__read_only` by default, and
    /// `__read_write` is OpenCL C 2.0 (6.6: "read_write ... reserved" in 1.2).
    fn image_parameter(&mut self, local: LocalId, ty: &QualType, decl: &ast::ParamDecl) {
        let access = self
            .specifiers(&decl.specifiers)
            .and_then(|s| s.access)
            .unwrap_or(AccessQualifier::ReadOnly);
        if access == AccessQualifier::ReadWrite {
            self.error(
                decl.span,
                format!(
                    "access qualifier read_write can not be used for '{}' prior to OpenCL C 2.0",
                    ty.ty
                ),
            );
        }
        self.func().image_access.insert(local, access);
    }

    /// A type name (casts, `sizeof`, attribute arguments).
    pub(super) fn type_name(&mut self, t: &ast::TypeName) -> Option<QualType> {
        let specs = self.specifiers(&t.specifiers)?;
        Some(self.declarator(specs.ty, &t.declarator)?.ty)
    }

    /// A declaration inside a function: locals (with initializers), `__local` and
    /// `__constant` variables of kernels, typedefs, nested prototypes.
    pub(super) fn local_declaration(&mut self, d: &ast::Declaration, out: &mut tir::Block) {
        let Some(specs) = self.specifiers(&d.specifiers) else {
            return;
        };
        for init in &d.declarators {
            let Some(declared) = self.declarator(specs.ty.clone(), &init.declarator) else {
                continue;
            };
            let Some((name, span)) = declared.name.clone() else {
                continue;
            };
            match specs.storage {
                Some((StorageClass::Typedef, _)) => {
                    self.declare(&name, Symbol::Typedef(declared.ty), span);
                    continue;
                }
                Some((StorageClass::Static | StorageClass::Extern, s)) => {
                    self.error(
                        s,
                        "variables in function scope cannot be declared static or extern",
                    );
                    continue;
                }
                _ => {}
            }
            if let Type::Function(f) = &declared.ty.ty {
                let f = (**f).clone();
                let overloadable = overloadable(&specs, &init.declarator);
                let id = self.declare_function(&name, &f, specs.kernel, overloadable, span);
                // An overload of a builtin's name is found by the call, not by the scope.
                if !(overloadable && super::builtin::is_builtin(&name)) {
                    self.scopes
                        .last_mut()
                        .expect("scope")
                        .names
                        .insert(name, Symbol::Function(id));
                }
                continue;
            }
            let mut ty = declared.ty;
            match ty.space {
                AddressSpace::Constant => {
                    if !self.func().is_kernel || self.func().depth > 1 {
                        self.error(span, "variables in the __constant address space can only be declared at program scope or in the outermost scope of a kernel function");
                        continue;
                    }
                    self.global_variable(name, ty, init.init.as_ref(), span);
                    continue;
                }
                AddressSpace::Local => {
                    if !self.func().is_kernel {
                        self.error(span, "non-kernel function variable cannot be declared in local address space");
                        continue;
                    }
                    if let Some(i) = &init.init {
                        self.error(i.span, "'__local' variable cannot have an initializer");
                    }
                }
                AddressSpace::Global => {
                    self.error(
                        span,
                        "function scope variable cannot be declared in global address space",
                    );
                    continue;
                }
                AddressSpace::Private => {}
            }
            if matches!(ty.ty, Type::Scalar(Scalar::Half)) && !self.extensions.fp16 {
                self.error(span, "declaring variable of type 'half' is not allowed without #pragma OPENCL EXTENSION cl_khr_fp16 : enable");
                continue;
            }
            // 6.9.b: "The image types cannot be used to declare a variable".
            if matches!(ty.ty, Type::Image(_)) {
                self.error(
                    span,
                    format!(
                        "type '{}' can only be used as a function parameter in OpenCL",
                        ty.ty
                    ),
                );
                continue;
            }
            let value = match (&init.init, ty.space) {
                (Some(i), AddressSpace::Private) => self.initializer(&mut ty, i),
                _ => None,
            };
            if !self.is_complete_object(&ty.ty) {
                self.error(span, format!("variable has incomplete type '{}'", ty.ty));
                continue;
            }
            let local = self.new_local(Arc::clone(&name), ty, span);
            self.declare(&name, Symbol::Local(local), span);
            out.push(tir::Stmt {
                kind: tir::StmtKind::Decl { local, init: value },
                span,
            });
        }
    }

    /// An initializer for a variable of type `ty` (an unsized array gets its length here).
    pub(super) fn initializer(
        &mut self,
        ty: &mut QualType,
        init: &ast::Initializer,
    ) -> Option<Init> {
        let current = ty.ty.clone();
        match (&init.kind, &current) {
            (ast::InitializerKind::Expr(e), Type::Array(elem, len)) => {
                // A char array from a string literal.
                if let ast::ExprKind::StringLiteral(pieces) = &e.kind
                    && matches!(elem.ty, Type::Scalar(Scalar::Char | Scalar::UChar))
                {
                    let bytes = self.string_bytes(pieces)?;
                    let n = len.unwrap_or(bytes.len() as u64);
                    if (bytes.len() as u64 - 1) > n {
                        self.error(e.span, "initializer-string for char array is too long");
                    }
                    *ty = QualType {
                        ty: Type::Array(elem.clone(), Some(n)),
                        ..ty.clone()
                    };
                    let items = bytes
                        .iter()
                        .take(n as usize)
                        .enumerate()
                        .map(|(i, b)| {
                            (
                                i as u64,
                                tir::Expr::int_const(
                                    u64::from(*b),
                                    elem.ty.scalar().unwrap_or(Scalar::Char),
                                    e.span,
                                ),
                            )
                        })
                        .collect();
                    return Some(Init::Aggregate(items));
                }
                self.error(e.span, "array initializer must be an initializer list");
                None
            }
            (ast::InitializerKind::Expr(e), _) => {
                let value = self.expr(e)?;
                Some(Init::Expr(
                    self.assignment_conversion(value, &ty.ty, e.span)?,
                ))
            }
            (ast::InitializerKind::List(items), Type::Vector(elem, n)) => {
                Some(Init::Expr(self.vector_list(*elem, *n, items, init.span)?))
            }
            (
                ast::InitializerKind::List(items),
                Type::Scalar(_) | Type::Pointer(_) | Type::Enum(..),
            ) => {
                // `int x = { 1 };`: a scalar in braces (C99 6.7.8p11), one expression.
                let Some(first) = items.first() else {
                    self.error(init.span, "scalar initializer cannot be empty");
                    return None;
                };
                if !first.designators.is_empty() {
                    self.error(first.span, "designator in the initializer of a scalar");
                    return None;
                }
                if items.len() > 1 {
                    self.error(items[1].span, "excess elements in scalar initializer");
                }
                let mut out = Vec::new();
                self.aggregate(&ty.ty.clone(), 0, &items[..1], 0, &mut out, Braces::Own)?;
                out.pop().map(|(_, e)| Init::Expr(e))
            }
            (ast::InitializerKind::List(items), _) => {
                let mut out = Vec::new();
                let ty_value = ty.ty.clone();
                let consumed = self.aggregate(&ty_value, 0, items, 0, &mut out, Braces::Own)?;
                if let Type::Array(elem, None) = &ty.ty {
                    let len = consumed.max(1) as u64;
                    *ty = QualType {
                        ty: Type::Array(elem.clone(), Some(len)),
                        ..ty.clone()
                    };
                }
                Some(Init::Aggregate(out))
            }
        }
    }

    /// The slot of aggregate `ty` a designator names, and whether it names it through an
    /// anonymous member (the slot is then the anonymous member, and the designator still
    /// has to be applied inside it).
    fn designated_slot(
        &mut self,
        d: &ast::Designator,
        ty: &Type,
        span: Span,
    ) -> Option<(u64, bool)> {
        match (d, ty) {
            (ast::Designator::Index(e), Type::Array(..)) => {
                let v = self.integer_constant(e)?;
                if v < 0 {
                    self.error(e.span, format!("array designator value '{v}' is negative"));
                    return None;
                }
                Some((v as u64, false))
            }
            (ast::Designator::Field(name), Type::Record(r)) => {
                match record::member_path(r, &name.name) {
                    Some(path) => Some((u64::from(path[0]), path.len() > 1)),
                    None => {
                        self.error(
                            name.span,
                            format!(
                                "field designator '{}' does not refer to any field",
                                name.name
                            ),
                        );
                        None
                    }
                }
            }
            _ => {
                self.error(span, "designator does not match the initialized type");
                None
            }
        }
    }

    /// Fills an aggregate (array, struct, union) at byte `base` from `items[start..]`,
    /// C99 6.7.8's brace elision and nested designators included; returns how many elements
    /// (arrays) or items were consumed.
    fn aggregate(
        &mut self,
        ty: &Type,
        base: u64,
        items: &[ast::InitItem],
        start: usize,
        out: &mut Vec<(u64, tir::Expr)>,
        braces: Braces,
    ) -> Option<usize> {
        let (braced, skip) = match braces {
            Braces::Own => (true, 0),
            Braces::Elided { skip } => (false, skip),
        };
        let (slots, slot_type): (u64, SlotOf) = match ty {
            Type::Array(elem, len) => {
                let elem_ty = elem.ty.clone();
                let size = elem_ty.size();
                (
                    len.unwrap_or(u64::MAX),
                    Box::new(move |i| Some((i * size, elem_ty.clone()))),
                )
            }
            Type::Record(r) => {
                let r = Arc::clone(r);
                let n = if r.is_union { 1 } else { r.fields.len() as u64 };
                (
                    n,
                    Box::new(move |i| {
                        r.fields
                            .get(i as usize)
                            .map(|f| (f.offset, f.ty.ty.clone()))
                    }),
                )
            }
            _ => {
                // A scalar in braces: `{ x }`.
                let item = items.get(start)?;
                let ast::InitializerKind::Expr(e) = &item.value.kind else {
                    self.error(item.span, "too many braces around scalar initializer");
                    return None;
                };
                let value = self.expr(e)?;
                out.push((base, self.assignment_conversion(value, ty, e.span)?));
                return Some(1);
            }
        };
        let mut index = 0u64;
        let mut i = start;
        let mut max_index = 0u64;
        while i < items.len() {
            let item = &items[i];
            // The designators of this item that are this level's: an enclosing level took
            // the first `skip` of the first item's (`.a.b = 1` reaches here as `.b`).
            let taken = if i == start { skip } else { 0 };
            let designators = item.designators.get(taken..).unwrap_or_default();
            if designators.is_empty() && index >= slots {
                // Past the last slot: the rest belongs to an enclosing level, or is excess.
                break;
            }
            let mut item_taken = taken;
            if let Some(d) = designators.first() {
                if !braced && i != start {
                    break;
                }
                let (slot, through_anonymous) = self.designated_slot(d, ty, item.span)?;
                index = slot;
                if let Type::Array(_, Some(n)) = ty
                    && index >= *n
                {
                    self.error(
                        item.span,
                        format!("array designator index ({index}) exceeds array bounds ({n})"),
                    );
                    return None;
                }
                if designators.len() > 1 || through_anonymous {
                    // A nested designator: the rest of the list (or, through an anonymous
                    // member, the same designator) applies inside the designated slot, and
                    // the items after it continue there (C99 6.7.8p17).
                    let (offset, slot_ty) = slot_type(index)?;
                    if !matches!(slot_ty, Type::Array(..) | Type::Record(_)) {
                        self.error(
                            item.span,
                            format!("designator into a value of non-aggregate type '{slot_ty}'"),
                        );
                        return None;
                    }
                    let next = taken + usize::from(!through_anonymous);
                    let used = self.aggregate(
                        &slot_ty,
                        base + offset,
                        items,
                        i,
                        out,
                        Braces::Elided { skip: next },
                    )?;
                    i += used.max(1);
                    index += 1;
                    max_index = max_index.max(index);
                    continue;
                }
                item_taken += 1;
            }
            let Some((offset, slot_ty)) = slot_type(index) else {
                break;
            };
            match &item.value.kind {
                ast::InitializerKind::List(inner) => {
                    if let Type::Vector(elem, n) = slot_ty {
                        // `{{4.0f, 5.0f}, ...}`: a vector's own braced list.
                        let v = self.vector_list(elem, n, inner, item.span)?;
                        out.push((base + offset, v));
                    } else {
                        self.aggregate(&slot_ty, base + offset, inner, 0, out, Braces::Own)?;
                    }
                    i += 1;
                }
                ast::InitializerKind::Expr(e) => {
                    let is_aggregate = matches!(slot_ty, Type::Array(..) | Type::Record(_));
                    let value = self.expr(e)?;
                    let lane_source = |elem: Scalar| match &value.ty {
                        Type::Vector(e, _) => *e == elem,
                        t => t.scalar().is_some(),
                    };
                    if let Type::Vector(elem, n) = slot_ty
                        && value.ty != slot_ty
                        && lane_source(elem)
                    {
                        // Brace elision into a vector (`float2 a[2] = {1, 2, 3, 4}`): the
                        // item and those after it give the vector's lanes in order.
                        let (v, used) = self.elided_vector(elem, n, value, items, i, item.span)?;
                        out.push((base + offset, v));
                        i += used;
                    } else if is_aggregate && value.ty != slot_ty {
                        // Brace elision: the item starts the sub-aggregate's initializers.
                        let used = self.aggregate(
                            &slot_ty,
                            base + offset,
                            items,
                            i,
                            out,
                            Braces::Elided { skip: item_taken },
                        )?;
                        i += used.max(1);
                    } else {
                        out.push((
                            base + offset,
                            self.assignment_conversion(value, &slot_ty, e.span)?,
                        ));
                        i += 1;
                    }
                }
            }
            index += 1;
            max_index = max_index.max(index);
        }
        if braced && i < items.len() {
            self.error(items[i].span, "excess elements in initializer");
        }
        Some(if matches!(ty, Type::Array(..)) && braced {
            max_index as usize
        } else {
            i - start
        })
    }
}

impl Analyzer<'_> {
    /// A vector from its braced list (`float4 v = {1, 2, 3, 4};`): the items give the lanes
    /// in order, a vector item of the same element type several of them (as in a vector
    /// literal), and lanes without an item are zero (C99 6.7.8p21; `int4 v = {7}` is
    /// `(7, 0, 0, 0)` as clang has it, not a splat).
    pub(super) fn vector_list(
        &mut self,
        elem: Scalar,
        n: u8,
        items: &[ast::InitItem],
        span: Span,
    ) -> Option<tir::Expr> {
        let mut parts = Vec::with_capacity(items.len());
        for item in items {
            if !item.designators.is_empty() {
                self.error(item.span, "designator in the initializer of a vector");
                return None;
            }
            match &item.value.kind {
                ast::InitializerKind::Expr(e) => parts.push(self.expr(e)?),
                ast::InitializerKind::List(inner) => {
                    // `{ {1}, 2 }`: a scalar lane in braces.
                    let [one] = inner.as_slice() else {
                        self.error(item.span, "too many braces around vector component");
                        return None;
                    };
                    let ast::InitializerKind::Expr(e) = &one.value.kind else {
                        self.error(item.span, "too many braces around vector component");
                        return None;
                    };
                    parts.push(self.expr(e)?);
                }
            }
        }
        self.vector_from_parts(elem, n, parts, span)
    }

    /// The vector of `n` lanes whose first lanes are those of `parts` (scalars, or vectors of
    /// element type `elem`), the rest zero.
    fn vector_from_parts(
        &mut self,
        elem: Scalar,
        n: u8,
        parts: Vec<tir::Expr>,
        span: Span,
    ) -> Option<tir::Expr> {
        let mut converted = self.vector_parts(elem, n, parts, VectorForm::Initializer, span)?;
        if converted.len() == 1 {
            return converted.pop();
        }
        self.vector_literal(elem, n, converted, span)
    }

    /// A vector slot filled by brace elision: `first` (the value of `items[start]`) and the
    /// items after it, until the vector's lanes are full, the list ends, or an item has a
    /// designator or braces. Returns the vector and how many items it took.
    fn elided_vector(
        &mut self,
        elem: Scalar,
        n: u8,
        first: tir::Expr,
        items: &[ast::InitItem],
        start: usize,
        span: Span,
    ) -> Option<(tir::Expr, usize)> {
        let lanes_of = |e: &tir::Expr| {
            if e.ty.is_vector() {
                u32::from(e.ty.lanes())
            } else {
                1
            }
        };
        let mut lanes = lanes_of(&first);
        let mut parts = vec![first];
        let mut used = 1;
        while lanes < u32::from(n) {
            let Some(item) = items.get(start + used) else {
                break;
            };
            let ast::InitializerKind::Expr(e) = &item.value.kind else {
                break;
            };
            if !item.designators.is_empty() {
                break;
            }
            let value = self.expr(e)?;
            lanes += lanes_of(&value);
            parts.push(value);
            used += 1;
        }
        Some((self.vector_from_parts(elem, n, parts, span)?, used))
    }
}

/// Whether the items an aggregate is filled from are its own braced list, or continue the
/// list of an enclosing aggregate (brace elision, or the items after a nested designator).
#[derive(Clone, Copy)]
enum Braces {
    Own,
    /// `skip`: how many designators of the first item enclosing levels already applied
    /// (`.a.b = 1` fills `a` from `.b = 1`).
    Elided {
        skip: usize,
    },
}

/// The byte offset and type of slot `i` of an aggregate being initialized.
type SlotOf = Box<dyn Fn(u64) -> Option<(u64, Type)>>;

/// Whether a member declaration without declarators is C11's anonymous struct or union: its
/// type is a struct or union defined right there, without a tag.
fn is_anonymous_record(specifiers: &ast::DeclSpecifiers) -> bool {
    specifiers.items.iter().any(|item| {
        matches!(&item.kind, DeclSpecifierKind::Type(TypeSpecifier::Struct(s))
            if s.tag.is_none() && s.body.is_some())
    })
}

/// The name of an image or sampler type: the types that exist only as values (parameters,
/// and variables for samplers), never inside a struct, an array or behind a pointer.
fn opaque_type_name(ty: &Type) -> Option<String> {
    matches!(ty, Type::Image(_) | Type::Sampler).then(|| ty.to_string())
}

/// Parameters of array type are pointers to the element (C99 6.7.5.3).
fn adjust_parameter(ty: QualType) -> QualType {
    match ty.ty {
        Type::Array(elem, _) => QualType {
            ty: Type::Pointer(elem),
            quals: Qualifiers::default(),
            space: AddressSpace::Private,
        },
        _ => ty,
    }
}

/// `CL_KERNEL_ARG_TYPE_NAME`: the type without qualifiers or address spaces, pointers as
/// `T*`, unsigned types by their OpenCL names (`uint`, `uchar4`).
fn arg_type_name(ty: &QualType) -> String {
    match &ty.ty {
        Type::Pointer(p) => format!("{}*", arg_type_name(p)),
        Type::Record(r) => format!(
            "{} {}",
            if r.is_union { "union" } else { "struct" },
            r.name.as_deref().unwrap_or("")
        ),
        other => other.to_string(),
    }
}

/// Whether a function declaration carries `__attribute__((overloadable))`, before the
/// declarator or after it.
fn overloadable(specs: &Specs, declarator: &ast::Declarator) -> bool {
    specs
        .attributes
        .iter()
        .chain(&declarator.attributes)
        .any(|a| matches!(&*a.name.name, "overloadable" | "__overloadable__"))
}
